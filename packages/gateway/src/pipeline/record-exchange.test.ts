/**
 * What the usage record keeps of an Anthropic exchange, through a real gateway in front of a
 * scripted loopback fake of the Messages API: the client named from Claude Code's user agent, the
 * provider's cache writes per request next to its reads (as `cache_creation_input_tokens` said),
 * summed per session in `/api/sessions`, and counted in `/metrics`. A Gemini exchange beside it
 * has no write figure and no write series.
 */
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { shellCallingUpstream } from '@toolmask/test-support/fake-upstream';
import type { SessionDetail, SessionsReport } from '../dashboard/api-types.js';
import {
  gatewayFixture,
  ownerFetch,
  runGeminiClient,
  settled,
  shellOutput,
  startTestGateway,
} from '../test-utils/gemini-client.js';
import { claudeLikeUpstream, runClaudeLikeSession } from '../test-utils/claude-like-session.js';

const cleanups = cleanUpAfterEach();

const STEPS = 3;
/** The fake's figures for request `step`: reads grow, writes differ per request. */
const usageOf = (step: number) => ({ input: 40, cacheRead: 1_000 * step, cacheWrite: 700 + step });

describe('the usage record of an Anthropic exchange', () => {
  it('keeps the client, the cache writes per request, their session sum and their metric', async () => {
    const fixture = await gatewayFixture();
    cleanups.push(fixture.cleanup);
    const anthropic = await claudeLikeUpstream(STEPS, usageOf);
    cleanups.push(() => anthropic.close());
    const gemini = await shellCallingUpstream(1, (step) => ({ prompt: 900, cached: 300 * step }));
    cleanups.push(() => gemini.close());
    const running = await startTestGateway({
      stateDir: fixture.stateDir,
      settingsFile: fixture.settingsFile,
      upstreams: { anthropic: anthropic.url, gemini: gemini.url },
    });
    cleanups.push(() => running.close());

    expect(await runClaudeLikeSession(running.url)).toBe(STEPS + 1);
    await runGeminiClient({
      url: `${running.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
      prompt: 'list it',
      outputFor: (call) => ({ output: shellOutput(call.id) }),
      maxRequests: 3,
      headers: { 'user-agent': 'GeminiCLI-tui/0.61.0/gemini-2.5-flash (linux; x64; terminal)' },
    });
    await settled(running);

    const report = (await (
      await ownerFetch(running, `${running.url}/api/sessions`)
    ).json()) as SessionsReport;
    const claude = report.sessions.find((session) => session.client === 'claude-code');
    const geminiSession = report.sessions.find((session) => session.client === 'gemini-cli');
    const steps = Array.from({ length: STEPS + 1 }, (_, step) => usageOf(step));
    const writes = steps.reduce((sum, usage) => sum + usage.cacheWrite, 0);
    expect(claude).toMatchObject({
      requests: STEPS + 1,
      cachedTokens: steps.reduce((sum, usage) => sum + usage.cacheRead, 0),
      cacheWriteTokens: writes,
    });
    expect(geminiSession?.cacheWriteTokens).toBe(0);
    expect(report.totals.cacheWriteTokens).toBe(writes);

    // Per request, as the provider said, and a part of the prompt like the reads.
    const detail = (await (
      await ownerFetch(running, `${running.url}/api/sessions/${claude!.id}`)
    ).json()) as SessionDetail;
    expect(detail.requests.map((record) => [record.front, record.cacheWriteTokens])).toEqual(
      steps.map((usage) => ['anthropic', usage.cacheWrite]),
    );
    expect(detail.requests[1]!.promptTokens).toBe(40 + 1_000 + 701);
    const geminiDetail = (await (
      await ownerFetch(running, `${running.url}/api/sessions/${geminiSession!.id}`)
    ).json()) as SessionDetail;
    expect(geminiDetail.requests.every((record) => !('cacheWriteTokens' in record))).toBe(true);

    const metrics = await (await ownerFetch(running, `${running.url}/metrics`)).text();
    const series = metrics
      .split('\n')
      .filter((line) => line.startsWith('toolmask_gateway_cache_write_tokens_total{'));
    expect(series).toHaveLength(1);
    expect(series[0]).toContain('client="claude-code"');
    expect(series[0]).toContain('front="anthropic"');
    expect(series[0]).toMatch(new RegExp(` ${writes}$`));
  });
});
