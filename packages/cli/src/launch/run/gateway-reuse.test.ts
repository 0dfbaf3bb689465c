/**
 * Which running standalone gateway a launch may reuse (issue 24, item 3): one that sends the
 * client's requests where they would go without toolmask. A launch that asks for nothing wants the
 * public endpoints, so a gateway started for a test upstream is not one to reuse.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_UPSTREAMS } from '@toolmask/gateway';
import { servesUpstreams, type UpstreamReuse } from './gateway-reuse.js';

const TEST = 'http://127.0.0.1:9999';
/** How gemini's and qwen's requests reach the gateway (their adapters say so: clients/index.test.ts). */
const GEMINI: UpstreamReuse = { apis: ['gemini', 'vertex', 'codeAssist'] };
const QWEN: UpstreamReuse = { namedRoutes: true };

describe('servesUpstreams', () => {
  it('gemini: a gateway with a test upstream does not carry a launch that asks for none', () => {
    expect(servesUpstreams(GEMINI, { gemini: TEST }, {})).toBe(false);
    expect(servesUpstreams(GEMINI, { codeAssist: TEST }, {})).toBe(false);
    expect(servesUpstreams(GEMINI, { vertex: TEST }, {})).toBe(false);
  });

  it('gemini: the defaults, given or not, match; so does the same own upstream', () => {
    expect(servesUpstreams(GEMINI, {}, {})).toBe(true);
    expect(servesUpstreams(GEMINI, { ...DEFAULT_UPSTREAMS }, {})).toBe(true);
    expect(servesUpstreams(GEMINI, { gemini: TEST }, { gemini: TEST })).toBe(true);
    expect(servesUpstreams(GEMINI, {}, { gemini: TEST })).toBe(false);
    // An OpenAI upstream is no concern of gemini's.
    expect(servesUpstreams(GEMINI, { openai: TEST }, {})).toBe(true);
  });

  it("qwen: its base URL and each provider route must be the gateway's", () => {
    expect(servesUpstreams(QWEN, {}, { openai: TEST })).toBe(false);
    expect(servesUpstreams(QWEN, { openai: TEST }, { openai: TEST })).toBe(true);
    expect(servesUpstreams(QWEN, { openai: `${TEST}/v1` }, { openai: TEST })).toBe(false);
    // Gemini upstreams are no concern of qwen's.
    expect(servesUpstreams(QWEN, { gemini: TEST, openai: TEST }, { openai: TEST })).toBe(true);
    expect(
      servesUpstreams(QWEN, { openaiNamed: { p0: TEST } }, { openaiNamed: { p0: TEST } }),
    ).toBe(true);
    expect(
      servesUpstreams(QWEN, { openaiNamed: { p0: 'http://other' } }, { openaiNamed: { p0: TEST } }),
    ).toBe(false);
  });

  it("opencode: the Anthropic and Gemini API upstreams its built-in providers name must be the gateway's (issue 35)", () => {
    const anthropic = 'https://api.anthropic.com';
    expect(servesUpstreams(QWEN, { anthropic: TEST }, { anthropic })).toBe(false);
    expect(servesUpstreams(QWEN, {}, { anthropic })).toBe(true);
    expect(servesUpstreams(QWEN, { gemini: TEST }, { gemini: TEST })).toBe(true);
    expect(servesUpstreams(QWEN, {}, { gemini: TEST })).toBe(false);
  });
});
