/**
 * The prompt prices behind every money figure: USD per million prompt tokens of a model, uncached
 * (`input`), read from the provider's cache (`cacheRead`) and written to it (`cacheWrite`; the
 * input price where the provider charges no premium). A model's row is the one whose name is the
 * longest prefix of the model's name (`claude-opus-5` prices `claude-opus-5-20260724`,
 * `claude-opus-5-5` has its own row).
 *
 * The table is data: `prices/model-prices.json` in the gateway's package, with its date and
 * sources (docs/dashboard.md). A person overrides or adds rows with `prices.json` in the state
 * folder, in the same shape (`date` and `sources` optional): its rows come first, and a row of the
 * same name replaces the built-in one. Both are checked row by row; a bad one is a
 * `PriceTableError` that names the file, the row and the field.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PriceTableError } from '../errors.js';

export interface PriceRow {
  /** A model name or prefix. */
  model: string;
  input: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface PriceTable {
  /** When the built-in figures were read (the person's file's, when it gives one). */
  date: string;
  sources: string[];
  models: PriceRow[];
}

/** The person's file in the state folder. */
export const USER_PRICES_FILE = 'prices.json';

const BUILT_IN = new URL('../../prices/model-prices.json', import.meta.url);

function check(value: unknown, file: string, builtIn: boolean): PriceTable {
  const table = value as Partial<PriceTable> | null;
  const invalid = (what: string) =>
    new PriceTableError('PRICES_INVALID', `${file}: ${what} (docs/dashboard.md, Prices)`);
  if (typeof table !== 'object' || table === null || !Array.isArray(table.models)) {
    throw invalid('expected an object with a "models" array');
  }
  if (builtIn && typeof table.date !== 'string') throw invalid('expected a "date"');
  const models = table.models.map((row: unknown, index) => {
    const entry = row as Record<string, unknown> | null;
    if (typeof entry !== 'object' || entry === null)
      throw invalid(`models[${index}] is not an object`);
    if (typeof entry['model'] !== 'string' || entry['model'] === '') {
      throw invalid(`models[${index}].model must be a model name`);
    }
    for (const field of ['input', 'cacheRead', 'cacheWrite']) {
      const price = entry[field];
      if (typeof price !== 'number' || !Number.isFinite(price) || price < 0) {
        throw invalid(
          `models[${index}] (${entry['model']}).${field} must be a price in USD per 1M tokens (a number ≥ 0)`,
        );
      }
    }
    return {
      model: entry['model'],
      input: entry['input'] as number,
      cacheRead: entry['cacheRead'] as number,
      cacheWrite: entry['cacheWrite'] as number,
    };
  });
  return {
    date: typeof table.date === 'string' ? table.date : '',
    sources: Array.isArray(table.sources) ? table.sources.map(String) : [],
    models,
  };
}

function readTable(file: string, builtIn: boolean): PriceTable | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (!builtIn && (error as { code?: string }).code === 'ENOENT') return undefined;
    throw new PriceTableError('PRICES_UNREADABLE', `${file}: cannot be read`, { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new PriceTableError('PRICES_INVALID', `${file}: not JSON (${(error as Error).message})`);
  }
  return check(value, file, builtIn);
}

/** The built-in table. */
export function builtInPrices(): PriceTable {
  return readTable(fileURLToPath(BUILT_IN), true)!;
}

/** The table in force for a state folder: the person's rows, then the built-in ones. Throws a PriceTableError. */
export function loadPrices(stateDir: string): PriceTable {
  const builtIn = builtInPrices();
  const own = readTable(path.join(stateDir, USER_PRICES_FILE), false);
  if (!own) return builtIn;
  const names = new Set(own.models.map((row) => row.model));
  return {
    date: own.date || builtIn.date,
    sources: [...own.sources, ...builtIn.sources],
    models: [...own.models, ...builtIn.models.filter((row) => !names.has(row.model))],
  };
}

/** The row pricing `model`, when the table has one. */
export function priceOf(model: string, table: Pick<PriceTable, 'models'>): PriceRow | undefined {
  let best: PriceRow | undefined;
  for (const row of table.models) {
    if (model.startsWith(row.model) && (!best || row.model.length > best.model.length)) best = row;
  }
  return best;
}

/** USD of a prompt's figures at `row`'s prices (a write with no figure of its own at `input`). */
export function promptCost(
  figures: { promptTokens: number; cachedTokens: number; cacheWriteTokens?: number },
  row: PriceRow,
): number {
  const written = figures.cacheWriteTokens ?? 0;
  const plain = Math.max(0, figures.promptTokens - figures.cachedTokens - written);
  return (
    (plain * row.input + figures.cachedTokens * row.cacheRead + written * row.cacheWrite) / 1e6
  );
}
