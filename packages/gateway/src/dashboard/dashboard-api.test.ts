/**
 * The dashboard's API on a gateway that masked outputs: the outputs of a session match its
 * decisions and read back byte for byte; reads are confined like `read_tool_output` (no `..`, no
 * other session, no link leading out, nothing outside `tool-outputs/`); slices put together are the
 * exact text even across multi-byte characters; the access rules (loopback Host, token by header,
 * bearer or the `?token=` cookie) hold for the page and the API; a usage record sends a `change`
 * event to open streams.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { gatewayFixture, ownerHeaders, post, shellOutput } from '../test-utils/gemini-client.js';
import { shellSessionThroughGateway } from '../test-utils/shell-session.js';
import type {
  DashboardStatus,
  OutputSlice,
  SessionDetail,
  SessionOutputs,
  SessionsReport,
} from './api-types.js';
import { readOutputSlice } from './output-text.js';

const cleanups = cleanUpAfterEach();

const MODEL_PATH = '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse';

async function maskingGateway(extra: { authToken?: string } = {}) {
  const headers: Record<string, string> = extra.authToken
    ? { 'x-toolmask-token': extra.authToken }
    : {};
  const session = await shellSessionThroughGateway(
    {
      settings: { toolProtectionThreshold: 4_000, minPrunableTokensThreshold: 2_000 },
      steps: 6,
      usage: (step) => ({ prompt: 1_000 * (step + 1), cached: 900 * step }),
      gateway: extra,
      headers,
    },
    cleanups,
  );
  // What opens the API: the auth token when there is one, else the access secret.
  const owner = extra.authToken ? headers : ownerHeaders(session.running);
  return { ...session, headers, owner };
}

async function getJson<T>(url: string, headers: Record<string, string>) {
  const answer = await fetch(url, { headers });
  return { status: answer.status, body: (await answer.json()) as T };
}

describe('the dashboard API', () => {
  it('lists a session, its requests and its outputs; reads outputs back byte for byte', async () => {
    const { running, stateDir, owner } = await maskingGateway();
    const report = (await getJson<SessionsReport>(`${running.url}/api/sessions`, owner)).body;
    expect(report.totals.requests).toBe(7);
    const session = report.sessions[0]!;
    const detail = (
      await getJson<SessionDetail>(`${running.url}/api/sessions/${session.id}`, owner)
    ).body;
    expect(detail.requests).toHaveLength(7);
    const outputs = (
      await getJson<SessionOutputs>(`${running.url}/api/sessions/${session.id}/outputs`, owner)
    ).body.outputs;
    expect(outputs.length).toBe(session.maskedOutputs);
    expect(outputs.length).toBeGreaterThan(0);
    for (const output of outputs) {
      expect(output.tool).toBe('run_shell_command');
      expect(output.preview).toContain(`${output.callId} line 1`);
      const slice = await getJson<OutputSlice>(
        `${running.url}/api/outputs?session=${session.id}&file=${encodeURIComponent(output.file)}`,
        owner,
      );
      expect(slice.status).toBe(200);
      expect(slice.body.text).toBe(shellOutput(output.callId));
      expect(slice.body).toMatchObject({ offset: 0, truncated: false, bytes: output.bytes });
      // By call id, as the read-back tool accepts it.
      const byCallId = await getJson<OutputSlice>(
        `${running.url}/api/outputs?session=${session.id}&file=${output.callId}`,
        owner,
      );
      expect(byCallId.body.text).toBe(slice.body.text);
    }
    const status = (await getJson<DashboardStatus>(`${running.url}/api/status`, owner)).body;
    expect(status).toMatchObject({
      source: 'gateway',
      details: { stateDir },
      settings: {
        masking: { toolProtectionThreshold: 4_000 },
        gateway: { retentionDays: 30, authToken: 'none' },
      },
    });
    expect(status.uptimeMs).toBeGreaterThanOrEqual(0);
    expect((await getJson(`${running.url}/api/sessions/0123456789abcdef`, owner)).status).toBe(404);
  });

  it('confines reads like read_tool_output', async () => {
    const { running, stateDir, settingsFile, owner } = await maskingGateway();
    const report = (await getJson<SessionsReport>(`${running.url}/api/sessions`, owner)).body;
    const id = report.sessions[0]!.id;
    const outputs = (
      await getJson<SessionOutputs>(`${running.url}/api/sessions/${id}/outputs`, owner)
    ).body.outputs;
    const folder = path.dirname(outputs[0]!.file);
    const read = (session: string, file: string) =>
      fetch(
        `${running.url}/api/outputs?session=${encodeURIComponent(session)}&file=${encodeURIComponent(file)}`,
        { headers: owner },
      ).then((answer) => answer.status);

    const usageDay = (await fs.readdir(path.join(stateDir, 'usage')))[0]!;
    expect(await read(id, `../../usage/${usageDay}`)).toBe(403);
    expect(await read(id, path.join(stateDir, 'usage', usageDay))).toBe(403);
    expect(await read(id, settingsFile)).toBe(403);
    expect(await read(id, 'missing.txt')).toBe(404);
    expect(await read('0000000000000000', outputs[0]!.file)).toBe(403);
    expect(await read('../x', outputs[0]!.file)).toBe(400);
    await fs.symlink(settingsFile, path.join(folder, 'link.call.0123456789abcdef.txt'));
    expect(await read(id, path.join(folder, 'link.call.0123456789abcdef.txt'))).toBe(403);
    // A hard link to a file elsewhere, and a FIFO that would block an open: refused, no hang.
    await fs.link(settingsFile, path.join(folder, 'hard.call.0123456789abcdef.txt'));
    expect(await read(id, path.join(folder, 'hard.call.0123456789abcdef.txt'))).toBe(403);
    execFileSync('mkfifo', [path.join(folder, 'fifo.call.0123456789abcdef.txt')]);
    expect(await read(id, path.join(folder, 'fifo.call.0123456789abcdef.txt'))).toBe(400);
    expect(
      (await fetch(`${running.url}/api/outputs?session=${id}`, { method: 'POST', headers: owner }))
        .status,
    ).toBe(405);
  });

  it('slices end on character boundaries: put together they are the exact text', async () => {
    const fixture = await gatewayFixture();
    cleanups.push(fixture.cleanup);
    const folder = path.join(fixture.stateDir, 'tool-outputs', 'session-s1');
    await fs.mkdir(folder, { recursive: true });
    const text = 'héllo wörld – ∑ 😀 €\n'.repeat(40);
    const file = path.join(folder, 'read_file.c1.0123456789abcdef.txt');
    await fs.writeFile(file, text);
    const access = { projectTempDir: fixture.stateDir, sessionId: 's1', allowOtherSessions: false };
    for (const sliceBytes of [1, 2, 3, 5, 7, 64]) {
      let offset = 0;
      let joined = '';
      let slices = 0;
      for (;;) {
        const slice = await readOutputSlice(file, access, offset, sliceBytes);
        expect(slice.text).not.toContain('\uFFFD');
        joined += slice.text;
        offset = slice.nextOffset;
        slices++;
        if (!slice.truncated) break;
        expect(slice.nextOffset).toBeGreaterThan(slice.offset);
      }
      expect(joined).toBe(text);
      expect(slices).toBeGreaterThan(1);
    }
  });
});

describe('the dashboard behind the access rules', () => {
  it('with a token: the page and API need it; ?token= sets a cookie the page and /metrics accept', async () => {
    const { running, headers } = await maskingGateway({ authToken: 'tok-123' });
    const page = await fetch(`${running.url}/`, { redirect: 'manual' });
    expect(page.status).toBe(401);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await fetch(`${running.url}/api/sessions`)).status).toBe(401);
    expect((await fetch(`${running.url}/api/sessions`, { headers })).status).toBe(200);
    expect(
      (
        await fetch(`${running.url}/api/status`, {
          headers: { authorization: 'Bearer tok-123' },
        })
      ).status,
    ).toBe(200);
    expect((await fetch(`${running.url}/?token=wrong`, { redirect: 'manual' })).status).toBe(401);

    const exchange = await fetch(`${running.url}/?token=tok-123`, { redirect: 'manual' });
    expect(exchange.status).toBe(303);
    expect(exchange.headers.get('location')).toBe('/');
    const setCookie = exchange.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(
      /^toolmask_dashboard_[0-9a-f]{12}=[0-9a-f]{64}; HttpOnly; SameSite=Strict; Path=\/$/,
    );
    const cookie = setCookie.split(';')[0]!;
    const withCookie = { cookie };
    const home = await fetch(`${running.url}/`, { headers: withCookie });
    expect(home.status).toBe(200);
    expect(home.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await home.text()).toContain('/assets/main.js');
    expect((await fetch(`${running.url}/assets/main.js`, { headers: withCookie })).status).toBe(
      200,
    );
    expect((await fetch(`${running.url}/api/sessions`, { headers: withCookie })).status).toBe(200);
    expect((await fetch(`${running.url}/metrics`, { headers: withCookie })).status).toBe(200);
    // The cookie is no token: not for a model request, not for MCP.
    const modelRequest = await post(`${running.url}${MODEL_PATH}`, { contents: [] }, withCookie);
    expect(modelRequest.status).toBe(401);
    const mcp = await fetch(`${running.url}/mcp`, { method: 'POST', headers: withCookie });
    expect(mcp.status).toBe(401);
  });

  it('on loopback: the page and API refuse a Host that is not a loopback name', async () => {
    const { running, owner } = await maskingGateway();
    for (const pathname of ['/', '/assets/main.js', '/api/sessions', '/api/events']) {
      const status = await new Promise<number>((resolve) => {
        http
          .get(`${running.url}${pathname}`, { headers: { host: 'evil.example' } }, (answer) => {
            answer.resume();
            resolve(answer.statusCode ?? 0);
          })
          .on('error', () => resolve(-1));
      });
      expect(status, pathname).toBe(403);
    }
    expect((await fetch(`${running.url}/assets/nope.js`, { headers: owner })).status).toBe(404);
  });

  it('a new usage record sends a change event to open streams; close() ends them', async () => {
    const { running, owner } = await maskingGateway();
    const received: string[] = [];
    const ended = new Promise<void>((resolve) => {
      http.get(`${running.url}/api/events`, { headers: owner }, (answer) => {
        expect(answer.headers['content-type']).toMatch(/^text\/event-stream/);
        answer.setEncoding('utf8');
        answer.on('data', (chunk: string) => received.push(chunk));
        answer.on('end', () => resolve());
      });
    });
    await expect.poll(() => received.join('')).toContain('retry:');
    await post(`${running.url}${MODEL_PATH}`, {
      contents: [{ role: 'user', parts: [{ text: 'another task' }] }],
    });
    await expect.poll(() => received.join(''), { timeout: 5_000 }).toContain('event: change');
    await running.close();
    await ended;
  });
});
