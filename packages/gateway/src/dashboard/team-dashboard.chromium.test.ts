/**
 * A team gateway's dashboard as two people see it, in headless Chromium: Alice's session went
 * through one replica; she opens another replica with her key once, and sees her session and the
 * full text of an output from the shared store; Bob, with his key, sees no session at all; and
 * the page without a key says how to get in. The cookie names the owner, never the key.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM_SKIP_MESSAGE,
  chromiumAvailable,
  launchChromium,
} from '@toolmask/test-support/browser';
import { shellCallingUpstream } from '@toolmask/test-support/fake-upstream';
import {
  gatewayFixture,
  runGeminiClient,
  settled,
  shellOutput,
  startTestGateway,
} from '../test-utils/gemini-client.js';
import { memoryTeamStores } from '../test-utils/memory-team-stores.js';
import type { RunningGateway } from '../listen-gateway.js';

const ALICE_KEY = 'alice-provider-key';
const BOB_KEY = 'bob-provider-key';

if (!chromiumAvailable) console.warn(`[toolmask] team dashboard tests ${CHROMIUM_SKIP_MESSAGE}`);

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

async function twoReplicas(): Promise<[RunningGateway, RunningGateway]> {
  const fixture = await gatewayFixture({
    toolProtectionThreshold: 8_000,
    minPrunableTokensThreshold: 8_000,
  });
  cleanups.push(fixture.cleanup);
  const upstream = await shellCallingUpstream(6);
  cleanups.push(() => upstream.close());
  const stores = memoryTeamStores();
  const replicas: RunningGateway[] = [];
  for (const index of [0, 1]) {
    const running = await startTestGateway({
      stateDir: `${fixture.stateDir}-${index}`,
      settingsFile: fixture.settingsFile,
      upstreams: { gemini: upstream.url },
      stores: { conversations: stores.conversations, usage: stores.usage },
      team: { outputs: stores.outputs, cookieSecret: async () => 'shared-cookie-secret' },
    });
    cleanups.push(() => running.close());
    replicas.push(running);
  }
  await runGeminiClient({
    url: `${replicas[0]!.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
    prompt: 'go',
    outputFor: (call) => ({ output: shellOutput(call.id) }),
    maxRequests: 10,
    headers: { 'x-goog-api-key': ALICE_KEY },
  });
  await settled(replicas[0]!);
  return replicas as [RunningGateway, RunningGateway];
}

describe.skipIf(!chromiumAvailable)('a team gateway dashboard', () => {
  it("shows each person their own sessions and outputs, on any replica, and nobody else's", async () => {
    const [, other] = await twoReplicas();

    const stranger = await browser.newContext({ viewport: { width: 1000, height: 800 } });
    const refused = await (await stranger.newPage()).goto(`${other.url}/`);
    expect(refused?.status()).toBe(401);
    expect(await refused!.text()).toContain('/?token=&lt;your key&gt;');
    await stranger.close();

    const alice = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await alice.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${other.url}/?token=${ALICE_KEY}`);
    expect(new URL(page.url()).search).toBe('');
    await page.waitForSelector('.session-row');
    expect(await page.locator('.session-row').count()).toBe(1);
    const cookies = await alice.cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(cookies[0]!.value).not.toContain(ALICE_KEY);

    await page.locator('.session-row').click();
    await page.waitForSelector('#outputs-list > li');
    const first = page.locator('#outputs-list > li').first();
    const callId = (await first.locator('.call-id').textContent()) ?? '';
    await first.locator('.open-output').click();
    await page.waitForSelector('#output-dialog[data-loaded="complete"]');
    expect(await page.locator('#output-text').textContent()).toBe(shellOutput(callId));
    expect(problems).toEqual([]);
    await alice.close();

    const bob = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const bobPage = await bob.newPage();
    await bobPage.goto(`${other.url}/?token=${BOB_KEY}`);
    await bobPage.waitForLoadState('networkidle');
    expect(await bobPage.locator('.session-row').count()).toBe(0);
    expect(await bobPage.locator('body').textContent()).not.toContain(callId);
    await bob.close();
  });
});
