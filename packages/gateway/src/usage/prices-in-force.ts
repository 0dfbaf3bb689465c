/**
 * The price table a gateway uses for its money figures: the built-in one with a person's
 * `prices.json` over it (model-prices.ts), or the built-in one alone when that file is bad (said in
 * the log); and the running totals for the terminal, priced by it.
 */
import { describeError } from '@toolmask/core/errors';
import { builtInPrices, loadPrices, priceOf, type PriceTable } from './model-prices.js';
import { UsageTally } from './usage-tally.js';

/** The running totals for the terminal, priced by the table in force. */
export function usageTotals(
  stateDir: string,
  log: (line: string) => void,
): { prices: PriceTable; tally: UsageTally } {
  const prices = pricesIn(stateDir, log);
  return { prices, tally: new UsageTally((model) => priceOf(model, prices)) };
}

/** The price table in force (model-prices.ts); a bad `prices.json` is said, and the built-in one used. */
export function pricesIn(stateDir: string, log: (line: string) => void): PriceTable {
  try {
    return loadPrices(stateDir);
  } catch (error) {
    log(`[toolmask gateway] ${describeError(error)}; using the built-in prices`);
    return builtInPrices();
  }
}
