/**
 * The dashboard against hostile content and strangers, in headless Chromium: a session whose
 * model, tool name, call id and output hold markup (`<script>`, `</textarea>`, an `<img onerror>`,
 * quotes, ampersands) shows every one of them as the characters they are and runs none; with an
 * auth token the page needs `?token=`, which becomes an HttpOnly cookie and leaves the address.
 */
import { promises as fs } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM_SKIP_MESSAGE,
  chromiumAvailable,
  launchChromium,
  watchedPage,
} from '@toolmask/test-support/browser';
import { codeAssistAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import {
  gatewayFixture,
  runGeminiClient,
  settled,
  shellOutput,
  startTestGateway,
  ownerFetch,
} from '../test-utils/gemini-client.js';
import type { SessionOutputs, SessionsReport } from './api-types.js';

const MODEL = `gemini "pro" & <b>co</b>`;
/**
 * What the gateway keeps of that model name: a name outside the bounds of a model id is kept as
 * `other` (server/caller-values.ts, issue 33), so its markup never reaches the page at all.
 */
const KEPT_MODEL = 'other';
const TOOL = `say "hi" & <i>bye</i>`;
const callId = (step: number) => `c"${step}"&amp;<x>`;
const HOSTILE = [
  '<script>window.__pwned = 1</script>',
  '</textarea><img src=x onerror="window.__pwned = 2">',
  `</pre>&lt;already escaped&gt; & "double" 'single'`,
].join('\n');

if (!chromiumAvailable)
  console.warn(`[toolmask] dashboard security tests ${CHROMIUM_SKIP_MESSAGE}`);

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

/** A gateway in front of a Code Assist upstream whose model calls the hostile tool four times. */
async function hostileGateway(authToken?: string) {
  const fixture = await gatewayFixture({
    toolProtectionThreshold: 2_000,
    minPrunableTokensThreshold: 1_000,
  });
  cleanups.push(fixture.cleanup);
  const upstream = await startFakeUpstream((request) => {
    const contents = (request.json as { request: { contents: unknown[] } }).request.contents;
    const step = Math.floor(contents.length / 2);
    const usage = { prompt: 1_000 * (step + 1), cached: 500 * step };
    return codeAssistAnswer(
      step < 4
        ? [{ functionCall: { id: callId(step), name: TOOL, args: { say: '<hi>' } } }]
        : [{ text: 'done' }],
      usage,
    );
  });
  cleanups.push(() => upstream.close());
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { codeAssist: upstream.url },
    ...(authToken ? { authToken } : {}),
  });
  cleanups.push(() => running.close());
  await runGeminiClient({
    url: `${running.url}/code-assist/v1internal:streamGenerateContent?alt=sse`,
    prompt: 'say hi',
    outputFor: (call) => ({ output: `${HOSTILE}\n${shellOutput(call.id, 200)}` }),
    maxRequests: 8,
    wrap: (contents) => ({
      model: MODEL,
      project: 'p',
      user_prompt_id: 'u',
      request: { contents, session_id: 'hostile-session' },
    }),
    headers: authToken ? { 'x-toolmask-token': authToken } : {},
  });
  await settled(running);
  return running;
}

describe.skipIf(!chromiumAvailable)('the dashboard and hostile content', () => {
  it('markup in a model, tool name, call id or output shows as text and never runs', async () => {
    const running = await hostileGateway();
    const report = (await (
      await ownerFetch(running, `${running.url}/api/sessions`)
    ).json()) as SessionsReport;
    const id = report.sessions[0]!.id;
    const outputs = (await (
      await ownerFetch(running, `${running.url}/api/sessions/${id}/outputs`)
    ).json()) as SessionOutputs;
    expect(outputs.outputs.length).toBeGreaterThan(0);

    const { page, problems } = await watchedPage(browser, 1000);
    await page.goto(running.dashboardUrl);
    await page.waitForSelector('.session-row');
    expect(await page.locator('.session-row td.model').textContent()).toBe(KEPT_MODEL);
    await page.locator('.session-row').click();
    await page.waitForSelector('#outputs-list');
    expect(await page.locator('.session-facts .model').textContent()).toBe(KEPT_MODEL);
    const first = page.locator('#outputs-list > li').first();
    expect(await first.locator('.tool').textContent()).toBe(TOOL);
    expect(await first.locator('.call-id').textContent()).toBe(outputs.outputs[0]!.callId);
    expect(outputs.outputs[0]!.callId).toBe(callId(0));
    expect(await first.locator('pre.preview').textContent()).toContain('<script>window.__pwned');

    await first.locator('.open-output').click();
    await page.waitForSelector('#output-dialog[data-loaded="complete"]');
    expect(await page.locator('#output-title').textContent()).toBe(`${TOOL} · ${callId(0)}`);
    const text = await page.locator('#output-text').textContent();
    expect(text).toBe(await fs.readFile(outputs.outputs[0]!.file, 'utf8'));
    expect(text).toContain(HOSTILE);

    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.evaluate('document.scripts.length')).toBe(1);
    expect(await page.evaluate('document.querySelectorAll("img, b, i, x").length')).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('with an auth token: the page asks for it; ?token= becomes an HttpOnly cookie', async () => {
    const running = await hostileGateway('s3cret-token');
    const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
    const refusedPage = await context.newPage();
    const refused = await refusedPage.goto(`${running.url}/`);
    expect(refused?.status()).toBe(401);
    expect(await refusedPage.locator('body').textContent()).toContain('?token=');
    expect((await fetch(`${running.url}/api/sessions`)).status).toBe(401);
    const wrong = await refusedPage.goto(`${running.url}/?token=nope`);
    expect(wrong?.status()).toBe(401);
    await refusedPage.close();

    // A page of its own: the refusals above log console errors of their own.
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    await page.goto(`${running.url}/?token=s3cret-token`);
    expect(new URL(page.url()).search).toBe('');
    await page.waitForSelector('.session-row');
    expect(await page.locator('.session-row td.model').textContent()).toBe(KEPT_MODEL);
    const cookies = await context.cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(cookies[0]!.value).not.toContain('s3cret');
    expect(await page.evaluate('document.cookie')).toBe('');
    // The cookie opens the dashboard, never a model request.
    const modelRequest = await fetch(`${running.url}/code-assist/v1internal:generateContent`, {
      method: 'POST',
      headers: { cookie: `${cookies[0]!.name}=${cookies[0]!.value}` },
      body: '{}',
    });
    expect(modelRequest.status).toBe(401);
    expect(problems).toEqual([]);
    await context.close();
  });
});
