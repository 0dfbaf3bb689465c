import { describe, expect, it } from 'vitest';
import { billedTokens, sharedChars, stepNet, type PromptShape } from './net-billing.js';
import { promptShape, segmentsOf } from './prompt-shape.js';

const shape = (...segments: Array<[string, number]>): PromptShape => ({
  digests: segments.map(([digest]) => digest),
  chars: segments.map(([, chars]) => chars),
});
const GAP = 300_000;

describe('net billing', () => {
  it('shares leading equal conversation elements, and the rest of the body as it is now', () => {
    const a = shape(['h', 10], ['1', 40], ['2', 40]);
    expect(sharedChars(a, shape(['h', 10], ['1', 40], ['3', 40]))).toBe(50);
    // A per-request value outside the conversation (Codex's metadata) breaks nothing.
    expect(sharedChars(a, shape(['x', 12], ['1', 40]))).toBe(52);
    expect(sharedChars(a, shape(['h', 10], ['9', 40], ['2', 40]))).toBe(10);
    expect(sharedChars(undefined, a)).toBe(0);
  });

  it('is the provider’s report exactly where masking changed nothing', () => {
    const first = shape(['h', 400], ['1', 4_000]);
    const one = stepNet(undefined, {
      unmasked: first,
      sent: first,
      usage: { promptTokens: 1_100, cachedTokens: 0, cacheWriteTokens: 1_100 },
      at: 0,
      idleGapMs: GAP,
    });
    expect(one.counterfactual).toEqual({
      promptTokens: 1_100,
      cachedTokens: 0,
      cacheWriteTokens: 1_100,
    });
    const second = shape(['h', 400], ['1', 4_000], ['2', 4_000]);
    const two = stepNet(one.state, {
      unmasked: second,
      sent: second,
      usage: { promptTokens: 2_100, cachedTokens: 1_100, cacheWriteTokens: 1_000 },
      at: 1_000,
      idleGapMs: GAP,
    });
    expect(two.counterfactual).toEqual({
      promptTokens: 2_100,
      cachedTokens: 1_100,
      cacheWriteTokens: 1_000,
    });
    expect(two.state.reportedTokens).toBe(3_200);
    expect(two.state.sentChars).toBe(12_800);
  });

  it('adds back what masking kept out, at the measured rate, and the reads it broke', () => {
    const before = shape(['h', 400], ['1', 4_000], ['2', 4_000]);
    const state = {
      unmasked: before,
      sent: before,
      at: 0,
      reportedTokens: 2_100,
      sentChars: 8_400,
    };
    // Output 1 masked to 400 characters: the sent prompt breaks after the header.
    const unmasked = shape(['h', 400], ['1', 4_000], ['2', 4_000], ['3', 4_000]);
    const sent = shape(['h', 400], ['1m', 400], ['2', 4_000], ['3', 4_000]);
    // The provider bills the sent prompt: 8,800 characters at 4 a token, 100 read (the header).
    const step = stepNet(state, {
      unmasked,
      sent,
      usage: { promptTokens: 2_200, cachedTokens: 100, cacheWriteTokens: 2_100 },
      at: 1_000,
      idleGapMs: GAP,
    });
    // 4 characters a token over the conversation: +900 tokens, and 8,000 more shared characters.
    expect(step.counterfactual).toEqual({
      promptTokens: 3_100,
      cachedTokens: 2_100,
      cacheWriteTokens: 1_000,
    });
    // After the idle gap, or when the provider read nothing, nothing would have been read.
    const late = stepNet(state, {
      unmasked,
      sent,
      usage: { promptTokens: 2_200, cachedTokens: 100, cacheWriteTokens: 2_100 },
      at: GAP + 1,
      idleGapMs: GAP,
    });
    expect(late.counterfactual?.cachedTokens).toBe(0);
    expect(late.counterfactual?.cacheWriteTokens).toBe(3_100);
  });

  it('takes the provider’s reads as they are for a conversation’s first request seen', () => {
    const body = shape(['h', 400], ['1', 4_000]);
    const step = stepNet(undefined, {
      unmasked: body,
      sent: body,
      usage: { promptTokens: 1_100, cachedTokens: 1_000 },
      at: 0,
      idleGapMs: GAP,
    });
    expect(step.counterfactual).toEqual({
      promptTokens: 1_100,
      cachedTokens: 1_000,
      cacheWriteTokens: 0,
    });
  });

  it('keeps the state but gives no counterfactual without a usage report', () => {
    const body = shape(['h', 400]);
    const step = stepNet(undefined, {
      unmasked: body,
      sent: body,
      usage: {},
      at: 0,
      idleGapMs: GAP,
    });
    expect(step.counterfactual).toBeUndefined();
    expect(step.state.sentChars).toBe(0);
  });

  it('bills reads and writes at the provider’s relative prices', () => {
    const anthropic = { cacheReadPrice: 0.1, cacheWritePrice: 1.25 };
    expect(
      billedTokens({ promptTokens: 1_000, cachedTokens: 600, cacheWriteTokens: 300 }, anthropic),
    ).toBeCloseTo(100 + 60 + 375, 9);
    expect(
      billedTokens(
        { promptTokens: 1_000, cachedTokens: 600 },
        { cacheReadPrice: 0.1, cacheWritePrice: 1 },
      ),
    ).toBeCloseTo(460, 9);
  });

  it('measures a body as its rest and its conversation elements', () => {
    const body = { model: 'm', request: { contents: [{ a: 1 }, 'x'] } };
    expect(segmentsOf(body, ['request', 'contents'])).toEqual([
      '{"model":"m","request":{"contents":[]}}',
      '{"a":1}',
      '"x"',
    ]);
    // The body is left as it was.
    expect(body.request.contents).toHaveLength(2);
    const measured = promptShape(JSON.stringify(body), ['request', 'contents'])!;
    expect(measured.chars).toEqual([39, 7, 3]);
    expect(promptShape('not json', ['messages'])).toBeUndefined();
    expect(promptShape('{"messages":3}', ['messages'])).toBeUndefined();
  });
});
