/**
 * `toolmask dashboard --telemetry-outfile FILE` over an outfile the in-process installation wrote:
 * a real gemini-cli-core client, toolmask installed, telemetry to a local outfile, a few rounds of
 * bulky shell outputs against the fake Gemini server. The dashboard's API then shows that
 * session with the provider's numbers from `gemini_cli.api_response`, the masking from the
 * `gemini_cli.tool_output_masking` events and the metric exports, and the offloaded outputs from
 * disk, byte for byte; in headless Chromium (where present) the page shows it too.
 * (Its own file: the OpenTelemetry SDK is process-wide.)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '@google/gemini-cli-core';
import { installToolOutputMasking, type MaskingPass } from '@toolmask/core';
import type { OutputSlice, SessionDetail, SessionOutputs, SessionsReport } from '@toolmask/gateway';
import type { FakeGeminiServer } from '@toolmask/test-support/fake-gemini-server';
import {
  runTelemetrySession,
  type TelemetrySession,
} from '@toolmask/test-support/telemetry-session';
import { chromiumAvailable, launchChromium, watchedPage } from '@toolmask/test-support/browser';
import { runCli } from '../../program.js';

const ARTIFACTS = path.resolve(import.meta.dirname, '../../../../../.tmp/artifacts/dashboard');

let session: TelemetrySession;
let server: FakeGeminiServer;
let config: Config;
let outfile: string;
let passes: MaskingPass[] = [];
let dashboard: {
  url: string;
  owner(): Record<string, string>;
  stderr(): string;
  stop(): Promise<number>;
};

/** Runs `toolmask dashboard ...` in-process until `stop()`; resolves once it listens. */
async function startDashboard(args: string[]): Promise<typeof dashboard> {
  let stop: (signal: string) => void = () => undefined;
  const stopped = new Promise<string>((resolve) => (stop = resolve));
  let announce: (url: string) => void = () => undefined;
  const listening = new Promise<string>((resolve) => (announce = resolve));
  let stderr = '';
  const exit = runCli(['dashboard', ...args], {
    stdout: {
      write: (text: string) => {
        const url = /listening on (\S+)/.exec(text)?.[1];
        if (url) announce(url);
      },
    },
    stderr: { write: (text: string) => (stderr += text) },
    env: process.env,
    cwd: process.cwd(),
    shutdownSignal: () => stopped,
  });
  const url = await Promise.race([
    listening,
    exit.then((code) => {
      throw new Error(`toolmask dashboard exited ${code}: ${stderr}`);
    }),
  ]);
  return {
    url,
    // The dashboard's secret for this run, from the address it printed for its owner.
    owner: () => ({ 'x-toolmask-token': /\?token=([0-9a-f]{64})/.exec(stderr)?.[1] ?? '' }),
    stderr: () => stderr,
    stop: () => {
      stop('SIGTERM');
      return exit;
    },
  };
}

async function getJson<T>(pathname: string): Promise<T> {
  const answer = await fetch(`${dashboard.url}${pathname}`, { headers: dashboard.owner() });
  expect(answer.status, pathname).toBe(200);
  return (await answer.json()) as T;
}

beforeAll(async () => {
  session = await runTelemetrySession({
    install: installToolOutputMasking,
    label: 'toolmask-dashboard',
    rounds: 8,
    // A short session: the floor warm rule masks in it (the rule is not the subject).
    settings: {
      toolProtectionThreshold: 4_000,
      minPrunableTokensThreshold: 2_000,
      warmRule: 'floor',
    },
    outputText: (round) => `build step ${round}: compiled unit ${'z'.repeat(40)}\n`.repeat(250),
  });
  ({ server, config, outfile, passes } = session);
  dashboard = await startDashboard(['--telemetry-outfile', outfile, '--port', '0']);
});

afterAll(async () => {
  expect(await dashboard?.stop()).toBe(0);
  await session?.close();
});

describe('toolmask dashboard over a telemetry outfile of the in-process installation', () => {
  it('an outfile that does not exist yet: a note says so, and the dashboard waits for it', async () => {
    const missing = path.join(path.dirname(outfile), 'not-written-yet.log');
    const waiting = await startDashboard(['--telemetry-outfile', missing, '--port', '0']);
    try {
      expect(waiting.stderr()).toContain(`${missing} does not exist yet`);
      expect(dashboard.stderr()).not.toContain('does not exist yet');
      const answer = await fetch(`${waiting.url}/api/sessions`, { headers: waiting.owner() });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { sessions: unknown[] }).sessions).toEqual([]);
    } finally {
      expect(await waiting.stop()).toBe(0);
    }
  });

  it('lists the session with the provider’s numbers and toolmask’s masking', async () => {
    const report = await getJson<SessionsReport>('/api/sessions');
    expect(report.sessions).toHaveLength(1);
    const session = report.sessions[0]!;
    const offloaded = passes.flatMap((pass) => pass.result.offloaded);
    expect(offloaded.length).toBeGreaterThan(0);
    expect(session).toMatchObject({
      id: config.getSessionId(),
      client: 'gemini-cli',
      requests: server.modelRequests().length,
      maskedOutputs: offloaded.length,
      failures: 0,
    });
    expect(session.promptTokens).toBeGreaterThan(0);
    expect(report.totals.requests).toBe(session.requests);

    const detail = await getJson<SessionDetail>(`/api/sessions/${session.id}`);
    expect(detail.requests).toHaveLength(server.modelRequests().length);
    // The fake server reports a prompt of a quarter of the request's bytes.
    expect(detail.requests.map((request) => request.promptTokens)).toEqual(
      server.modelRequests().map((request) => Math.ceil(request.bytes / 4)),
    );
    const saved = offloaded.reduce(
      (sum, output) => sum + Math.max(0, output.tokensBefore - output.tokensAfter),
      0,
    );
    expect(detail.requests.at(-1)!.tokensKeptOut).toBeCloseTo(saved, 0);
    expect(detail.requests.filter((request) => request.newlyMasked > 0).length).toBe(
      passes.filter((pass) => pass.result.maskedCount > 0).length,
    );
    expect(detail.extras).toMatchObject({
      'gemini_cli.tool_output_masking.masked.count': offloaded.length,
    });
  });

  it('lists the offloaded outputs from disk and reads them back byte for byte', async () => {
    const id = config.getSessionId();
    const { outputs } = await getJson<SessionOutputs>(`/api/sessions/${id}/outputs`);
    const offloaded = passes.flatMap((pass) => pass.result.offloaded);
    expect(outputs.map((output) => output.file).sort()).toEqual(
      offloaded.map((output) => output.filePath).sort(),
    );
    for (const output of outputs) {
      expect(output.preview).toMatch(/^build step \d+/);
      const slice = await getJson<OutputSlice>(
        `/api/outputs?session=${id}&file=${encodeURIComponent(output.file)}`,
      );
      expect(slice.text).toBe(fs.readFileSync(output.file, 'utf8'));
    }
    const outside = await fetch(
      `${dashboard.url}/api/outputs?session=${id}&file=${encodeURIComponent(outfile)}`,
      { headers: dashboard.owner() },
    );
    expect(outside.status).toBe(403);
  });

  it.skipIf(!chromiumAvailable)(
    'the page shows the session, its chart and its outputs',
    async () => {
      const browser = await launchChromium();
      try {
        const { page, problems } = await watchedPage(browser, 1400);
        const secret = dashboard.owner()['x-toolmask-token'];
        await page.goto(`${dashboard.url}/?token=${secret}`);
        await page.waitForSelector('.session-row');
        expect(await page.locator('#source-label').textContent()).toBe('telemetry outfile');
        expect(await page.locator('.session-row td.client').textContent()).toBe('gemini-cli');
        await page.locator('.session-row').click();
        await page.waitForSelector('#outputs-list');
        expect(await page.locator('circle[data-series="sent"]').count()).toBe(
          server.modelRequests().length,
        );
        fs.mkdirSync(ARTIFACTS, { recursive: true });
        await page.screenshot({ path: path.join(ARTIFACTS, 'outfile-session-1400.png') });
        await page.locator('#outputs-list .open-output').first().click();
        await page.waitForSelector('#output-dialog[data-loaded="complete"]');
        const { outputs } = await getJson<SessionOutputs>(
          `/api/sessions/${config.getSessionId()}/outputs`,
        );
        expect(await page.locator('#output-text').textContent()).toBe(
          fs.readFileSync(outputs[0]!.file, 'utf8'),
        );
        expect(problems).toEqual([]);
      } finally {
        await browser.close();
      }
    },
  );
});
