import { describe, expect, it } from 'vitest';
import { createPalette } from '../../render/color.js';
import { describeNet, type UsageFigures } from './usage-summary.js';

const plain = createPalette(false);
const figures = (values: Partial<UsageFigures>): UsageFigures => ({
  requests: 10,
  promptTokens: 0,
  cachedTokens: 0,
  billed: 0,
  billedWithoutMasking: 0,
  cost: 0,
  costWithoutMasking: 0,
  requestsUnpriced: 0,
  maskedOutputs: 0,
  tokensKeptOut: 0,
  bytesOffloaded: 0,
  failures: 0,
  unreachable: 0,
  requestsWithUsage: 10,
  requestsNetMeasured: 10,
  ...values,
});

describe('the net figure', () => {
  it('says how much less masking billed, in tokens and money', () => {
    const line = describeNet(
      figures({
        billed: 88_000,
        billedWithoutMasking: 100_000,
        cost: 0.44,
        costWithoutMasking: 0.5,
      }),
      plain,
    );
    expect(line).toBe('billed 12% less than without masking (12,000 tokens, $0.06)');
  });

  it('says so, honestly, when masking billed more', () => {
    const line = describeNet(
      figures({
        billed: 116_000,
        billedWithoutMasking: 100_000,
        cost: 0.58,
        costWithoutMasking: 0.5,
      }),
      plain,
    );
    expect(line).toBe('billed 16% more than without masking (16,000 tokens, $0.08)');
  });

  it('shows no money without a price, nor a figure without cache figures', () => {
    expect(
      describeNet(figures({ billed: 90, billedWithoutMasking: 100, requestsUnpriced: 10 }), plain),
    ).toBe(
      'billed 10% less than without masking (10 tokens; no price for the model of 10 requests)',
    );
    expect(describeNet(figures({ requestsNetMeasured: 0 }), plain)).toBe(
      'net billed not measured (the provider reported no cache figures)',
    );
    expect(describeNet(figures({ requestsNetMeasured: 0, requestsWithUsage: 0 }), plain)).toBe(
      'net billed not measured (the provider reported no usage)',
    );
    expect(
      describeNet(
        figures({ requestsNetMeasured: 4, billed: 90, billedWithoutMasking: 100 }),
        plain,
      ),
    ).toBe(
      'billed 10% less than without masking (10 tokens, $0.00) over the 4 requests with cache figures',
    );
  });
});
