/**
 * Any web page in the person's browser can send requests to a loopback port. A page served from
 * another origin tries every kind of request a page can make without asking the server first
 * (`fetch` in `no-cors` mode: GET, and POST with a `text/plain` body, the "simple" requests), and
 * the JSON ones a page would have to ask for (which the browser asks the gateway about, and the
 * gateway never allows), to each route. Judged by what reached anything: the upstream sees no
 * request, the state folder gains no file, the dashboard counts no session.
 */
import { promises as fs } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM_SKIP_MESSAGE,
  chromiumAvailable,
  launchChromium,
  watchedPage,
} from '@toolmask/test-support/browser';
import {
  geminiAnswer,
  openAiAnswer,
  startFakeUpstream,
} from '@toolmask/test-support/fake-upstream';
import { gatewayFixture, ownerFetch, startTestGateway } from '../test-utils/gemini-client.js';

if (!chromiumAvailable) console.warn(`[toolmask] cross-origin tests ${CHROMIUM_SKIP_MESSAGE}`);

let cleanups: Array<() => Promise<void>> = [];
let browser: Browser;

beforeAll(async () => {
  if (chromiumAvailable) browser = await launchChromium();
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
  await browser?.close();
});

/** Every file below `dir`, as paths relative to it. */
async function filesBelow(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

/** A page on another loopback port: the attacker's origin. */
async function attackerOrigin(): Promise<{ url: string; server: Server }> {
  const server = createServer((_request, response) => {
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><title>a page</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

const MODEL_BODY = JSON.stringify({
  contents: [
    { role: 'user', parts: [{ text: 'planted by a web page' }] },
    {
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: 'x',
            name: 'run_shell_command',
            response: { output: 'planted '.repeat(5_000) },
          },
        },
      ],
    },
  ],
});
const CHAT_BODY = JSON.stringify({
  model: 'm',
  messages: [{ role: 'user', content: 'planted by a web page' }],
});

describe('a page of another origin', () => {
  it.skipIf(!chromiumAvailable)(
    'reaches no route: nothing goes upstream, nothing is written, no session appears',
    async () => {
      const fixture = await gatewayFixture();
      cleanups.push(fixture.cleanup);
      const upstream = await startFakeUpstream((request) =>
        request.path.includes('chat/completions')
          ? openAiAnswer({ content: 'ok' })
          : geminiAnswer([{ text: 'ok' }]),
      );
      cleanups.push(() => upstream.close());
      const running = await startTestGateway({
        stateDir: fixture.stateDir,
        settingsFile: fixture.settingsFile,
        upstreams: { gemini: upstream.url, openai: `${upstream.url}/v1` },
      });
      cleanups.push(() => running.close());
      const attacker = await attackerOrigin();
      cleanups.push(() => new Promise((resolve) => attacker.server.close(() => resolve())));
      const stateBefore = await filesBelow(fixture.stateDir);

      const { page } = await watchedPage(browser, 800);
      await page.goto(attacker.url);
      const gateway = running.url;
      const targets = [
        '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
        '/gemini/v1beta/models/gemini-2.5-flash:generateContent',
        '/v1internal:streamGenerateContent?alt=sse',
        '/openai/v1/chat/completions',
        '/v1/chat/completions',
        '/mcp',
        '/api/sessions',
        '/api/status',
        '/metrics',
        '/',
      ];
      // What the page could read back, and which requests the browser let through at all.
      const outcomes = (await page.evaluate(
        async ({ gateway, targets, modelBody, chatBody }) => {
          const results: string[] = [];
          for (const target of targets) {
            const body = target.includes('chat') ? chatBody : modelBody;
            const attempts: Array<[string, RequestInit]> = [
              ['GET no-cors', { mode: 'no-cors' }],
              ['POST text/plain no-cors', { mode: 'no-cors', method: 'POST', body }],
              [
                'POST json cors',
                { method: 'POST', body, headers: { 'content-type': 'application/json' } },
              ],
            ];
            for (const [name, init] of attempts) {
              try {
                const answer = await fetch(gateway + target, init);
                // An opaque answer (no-cors) cannot be read; a readable one must not be ok.
                results.push(`${name} ${target}: ${answer.type} ${answer.status}`);
              } catch {
                results.push(`${name} ${target}: blocked`);
              }
            }
          }
          return results;
        },
        { gateway, targets, modelBody: MODEL_BODY, chatBody: CHAT_BODY },
      )) as string[];

      // A page reads nothing: every answer is opaque or the browser blocked it.
      expect(outcomes.filter((line) => !/: (opaque 0|blocked)$/.test(line))).toEqual([]);
      expect(upstream.requests).toHaveLength(0);
      expect(await filesBelow(fixture.stateDir)).toEqual(stateBefore);
      const sessions = (await (await ownerFetch(running, `${gateway}/api/sessions`)).json()) as {
        sessions: unknown[];
      };
      expect(sessions.sessions).toEqual([]);
      await page.close();
    },
  );
});
