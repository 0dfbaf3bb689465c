/**
 * Which running standalone gateway a launch may reuse (issue 24, item 3): one that sends the
 * client's requests where they would go without toolmask. A launch that asks for nothing wants the
 * public endpoints, so a gateway started for a test upstream is not one to reuse.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_UPSTREAMS } from '@toolmask/gateway';
import { geminiUpstreamShown, servesUpstreams } from './gateway-reuse.js';

const TEST = 'http://127.0.0.1:9999';

describe('servesUpstreams', () => {
  it('gemini: a gateway with a test upstream does not carry a launch that asks for none', () => {
    expect(servesUpstreams('gemini', { gemini: TEST }, {})).toBe(false);
    expect(servesUpstreams('gemini', { codeAssist: TEST }, {})).toBe(false);
    expect(servesUpstreams('gemini', { vertex: TEST }, {})).toBe(false);
  });

  it('gemini: the defaults, given or not, match; so does the same own upstream', () => {
    expect(servesUpstreams('gemini', {}, {})).toBe(true);
    expect(servesUpstreams('gemini', { ...DEFAULT_UPSTREAMS }, {})).toBe(true);
    expect(servesUpstreams('gemini', { gemini: TEST }, { gemini: TEST })).toBe(true);
    expect(servesUpstreams('gemini', {}, { gemini: TEST })).toBe(false);
    // An OpenAI upstream is no concern of gemini's.
    expect(servesUpstreams('gemini', { openai: TEST }, {})).toBe(true);
  });

  it("qwen: its base URL and each provider route must be the gateway's", () => {
    expect(servesUpstreams('qwen', {}, { openai: TEST })).toBe(false);
    expect(servesUpstreams('qwen', { openai: TEST }, { openai: TEST })).toBe(true);
    expect(servesUpstreams('qwen', { openai: `${TEST}/v1` }, { openai: TEST })).toBe(false);
    // Gemini upstreams are no concern of qwen's.
    expect(servesUpstreams('qwen', { gemini: TEST, openai: TEST }, { openai: TEST })).toBe(true);
    expect(
      servesUpstreams('qwen', { openaiNamed: { p0: TEST } }, { openaiNamed: { p0: TEST } }),
    ).toBe(true);
    expect(
      servesUpstreams(
        'qwen',
        { openaiNamed: { p0: 'http://other' } },
        { openaiNamed: { p0: TEST } },
      ),
    ).toBe(false);
  });
});

describe('geminiUpstreamShown', () => {
  it('names the upstream of each auth type, own or default', () => {
    expect(geminiUpstreamShown({}, 'gemini')).toBe(DEFAULT_UPSTREAMS.gemini);
    expect(geminiUpstreamShown({ gemini: TEST }, 'gemini')).toBe(TEST);
    expect(geminiUpstreamShown({}, 'codeAssist')).toBe(DEFAULT_UPSTREAMS.codeAssist);
    expect(geminiUpstreamShown({}, 'vertex')).toContain('regional');
  });
});
