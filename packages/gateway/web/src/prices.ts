/**
 * The price table behind "money saved", editable on the settings panel and kept in this
 * browser's localStorage. A model's price is the row whose name is the longest prefix of the
 * model name (`gemini-2.5-flash` prices `gemini-2.5-flash-001`, `gemini-2.5-flash-lite` has its
 * own row). USD per million prompt tokens, uncached and cached.
 *
 * The defaults are starting points to edit, not quotes: docs/dashboard.md says where each figure
 * comes from and as of when. Long-context tiers (prompts over 200k tokens) are not modelled.
 */
import type { SessionSummary } from '../../src/dashboard/api-types.js';

export interface PriceRow {
  /** A model name or prefix. */
  model: string;
  /** USD per 1M uncached prompt tokens. */
  input: number;
  /** USD per 1M prompt tokens read from the provider's cache. */
  cached: number;
}

export const DEFAULT_PRICES: readonly PriceRow[] = [
  { model: 'gemini-3-pro', input: 2.0, cached: 0.2 },
  { model: 'gemini-2.5-pro', input: 1.25, cached: 0.125 },
  { model: 'gemini-2.5-flash', input: 0.3, cached: 0.03 },
  { model: 'gemini-2.5-flash-lite', input: 0.1, cached: 0.01 },
  { model: 'qwen3-coder-plus', input: 1.0, cached: 0.2 },
  { model: 'qwen3-coder-flash', input: 0.3, cached: 0.06 },
];

const STORAGE_KEY = 'toolmask.dashboard.prices.v1';

function isPriceRow(value: unknown): value is PriceRow {
  const row = value as Partial<PriceRow> | null;
  return (
    !!row &&
    typeof row.model === 'string' &&
    typeof row.input === 'number' &&
    Number.isFinite(row.input) &&
    typeof row.cached === 'number' &&
    Number.isFinite(row.cached)
  );
}

export function loadPrices(): PriceRow[] {
  try {
    const saved: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null');
    if (Array.isArray(saved) && saved.every(isPriceRow)) return saved;
  } catch {
    // Unreadable or unavailable storage: the defaults.
  }
  return DEFAULT_PRICES.map((row) => ({ ...row }));
}

export function savePrices(rows: readonly PriceRow[]): void {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(rows));
  } catch {
    // Storage unavailable: the edit lasts until the page is closed.
  }
}

export function resetPrices(): PriceRow[] {
  try {
    localStorage.removeItem(STORAGE_KEY);
  } catch {
    // nothing saved
  }
  return loadPrices();
}

export function priceFor(model: string, rows: readonly PriceRow[]): PriceRow | undefined {
  let best: PriceRow | undefined;
  for (const row of rows) {
    if (row.model !== '' && model.startsWith(row.model)) {
      if (!best || row.model.length > best.model.length) best = row;
    }
  }
  return best;
}

/**
 * What the tokens kept out would have cost: each session's kept-out tokens at its model's
 * price, cached at the session's real cache hit share (without masking they would have sat in
 * the cached prefix about as often as the rest of the prompt did).
 */
export function moneySaved(
  sessions: readonly SessionSummary[],
  rows: readonly PriceRow[],
): { dollars: number; unpricedSessions: number } {
  let dollars = 0;
  let unpricedSessions = 0;
  for (const session of sessions) {
    if (session.tokensKeptOut <= 0) continue;
    const price = priceFor(session.model, rows);
    if (!price) {
      unpricedSessions++;
      continue;
    }
    const share = session.cacheHitShare;
    dollars += (session.tokensKeptOut / 1e6) * (share * price.cached + (1 - share) * price.input);
  }
  return { dollars, unpricedSessions };
}
