/**
 * The dashboard's words for net billed against no masking (web/src/net-billed.ts): a session
 * billed as without masking reads "the same as", never "the same than" or "0 tokens less".
 */
import { describe, expect, it } from 'vitest';
import { netCell, netNote, type NetFigures } from '../../web/src/net-billed.js';

const figures = (saved: number): NetFigures => ({
  requests: 5,
  requestsNetMeasured: 5,
  billed: 1_000 - saved,
  billedWithoutMasking: 1_000,
  netSavedTokens: saved,
  cost: 0,
  costWithoutMasking: 0,
  requestsUnpriced: 5,
});

describe('net billed words', () => {
  it('says the same as without masking when nothing was saved', () => {
    expect(netNote(figures(0))).toBe(
      'billed the same as without masking · no price for 5 request(s)',
    );
    expect(netCell(figures(0))).toBe('the same');
  });

  it('says how much less or more otherwise', () => {
    expect(netNote(figures(120))).toBe(
      'billed 12% less than without masking · 120 tokens · no price for 5 request(s)',
    );
    expect(netCell(figures(-30))).toBe('30 tokens more');
  });
});
