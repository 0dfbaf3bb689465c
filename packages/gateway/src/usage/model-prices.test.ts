import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { PriceTableError } from '../errors.js';
import {
  builtInPrices,
  loadPrices,
  priceOf,
  promptCost,
  USER_PRICES_FILE,
} from './model-prices.js';

const cleanups = cleanUpAfterEach();

async function stateWith(prices: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-prices-'));
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  await fs.writeFile(path.join(dir, USER_PRICES_FILE), prices);
  return dir;
}

describe('the price table', () => {
  it('is dated and prices current Claude, GPT and Gemini models, writes included', () => {
    const table = builtInPrices();
    expect(table.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(table.sources.length).toBeGreaterThanOrEqual(3);
    expect(priceOf('claude-opus-5-5', table)).toEqual({
      model: 'claude-opus-5-5',
      input: 4,
      cacheRead: 0.2,
      cacheWrite: 5,
    });
    // The longest prefix: a dated id finds its model, not a neighbour's.
    expect(priceOf('claude-opus-5-20260724', table)?.input).toBe(5);
    expect(priceOf('claude-opus-4-1-20250805', table)?.input).toBe(15);
    expect(priceOf('gpt-5-codex', table)?.cacheRead).toBe(0.125);
    expect(priceOf('gemini-2.5-flash-lite', table)?.input).toBe(0.1);
    expect(priceOf('gemini-2.5-flash-001', table)?.input).toBe(0.3);
    expect(priceOf('fake-model', table)).toBeUndefined();
    // Anthropic's write premium: 1.25x on every Claude row; none elsewhere.
    for (const row of table.models) {
      const premium = row.model.startsWith('claude-') ? 1.25 : 1;
      expect(row.cacheWrite, row.model).toBeCloseTo(row.input * premium, 9);
    }
  });

  it('takes a person’s rows first, a row of the same name replacing the built-in one', async () => {
    const dir = await stateWith(
      JSON.stringify({
        models: [
          { model: 'gpt-5', input: 1, cacheRead: 0.1, cacheWrite: 1 },
          { model: 'my-model', input: 3, cacheRead: 0.3, cacheWrite: 3 },
        ],
      }),
    );
    const table = loadPrices(dir);
    expect(priceOf('gpt-5', table)?.input).toBe(1);
    expect(priceOf('my-model-7b', table)?.input).toBe(3);
    expect(priceOf('claude-opus-5-5', table)?.input).toBe(4);
    expect(table.date).toBe(builtInPrices().date);
    // No file: the built-in table.
    await fs.rm(path.join(dir, USER_PRICES_FILE));
    expect(loadPrices(dir)).toEqual(builtInPrices());
  });

  it('says which file, row and field is wrong', async () => {
    const bad = await stateWith(
      JSON.stringify({ models: [{ model: 'm', input: 1, cacheRead: -1, cacheWrite: 1 }] }),
    );
    expect(() => loadPrices(bad)).toThrow(PriceTableError);
    expect(() => loadPrices(bad)).toThrow(
      /prices\.json: models\[0\] \(m\)\.cacheRead must be a price/,
    );
    const notArray = await stateWith('{"models": {}}');
    expect(() => loadPrices(notArray)).toThrow(/a "models" array/);
    const notJson = await stateWith('{');
    expect(() => loadPrices(notJson)).toThrow(/prices\.json: not JSON/);
  });

  it('costs a prompt at its reads, writes and the rest', () => {
    const row = { model: 'm', input: 4, cacheRead: 0.2, cacheWrite: 5 };
    expect(
      promptCost(
        { promptTokens: 1_000_000, cachedTokens: 500_000, cacheWriteTokens: 400_000 },
        row,
      ),
    ).toBeCloseTo(0.4 + 0.1 + 2, 9);
    expect(promptCost({ promptTokens: 1_000_000, cachedTokens: 500_000 }, row)).toBeCloseTo(2.1, 9);
  });
});
