import { describe, expect, it } from 'vitest';
import { formatMaskingNotice } from './maskingNotice.js';

describe('formatMaskingNotice', () => {
  const base = { maxOutputTokens: 262_144, tokensSaved: 48_213, directory: '/t/session-a' };

  it('older outputs masked by the budget', () => {
    expect(formatMaskingNotice({ ...base, masked: 7, oversized: 0 })).toBe(
      'toolmask: masked 7 older tool outputs, freed ~48,213 tokens; full outputs in /t/session-a',
    );
    expect(formatMaskingNotice({ ...base, masked: 1, oversized: 0 })).toBe(
      'toolmask: masked 1 older tool output, freed ~48,213 tokens; full outputs in /t/session-a',
    );
  });

  it('outputs offloaded by the size guard say so, with the limit', () => {
    expect(formatMaskingNotice({ ...base, masked: 1, oversized: 1 })).toBe(
      'toolmask: offloaded 1 oversized tool output (over 262,144 tokens), freed ~48,213 tokens; full outputs in /t/session-a',
    );
    expect(formatMaskingNotice({ ...base, masked: 8, oversized: 2 })).toBe(
      'toolmask: masked 8 tool outputs (2 over 262,144 tokens), freed ~48,213 tokens; full outputs in /t/session-a',
    );
  });
});
