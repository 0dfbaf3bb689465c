/**
 * Number formats for tables: thousands separators, fixed units. The two `Intl.NumberFormat`s are
 * made on first use: making one starts ICU, about 30 ms of CPU that every command importing this
 * module (the launcher among them, before its client starts) would otherwise pay.
 */
let integerFormat: Intl.NumberFormat | undefined;
let oneDecimalFormat: Intl.NumberFormat | undefined;
const integer = {
  format: (value: number): string =>
    (integerFormat ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })).format(value),
};
const oneDecimal = {
  format: (value: number): string =>
    (oneDecimalFormat ??= new Intl.NumberFormat('en-US', {
      minimumFractionDigits: 1,
      maximumFractionDigits: 1,
    })).format(value),
};

export function formatInteger(value: number): string {
  return integer.format(Math.round(value));
}

export function formatMilliseconds(value: number): string {
  return `${value < 10 ? oneDecimal.format(value) : integer.format(value)} ms`;
}

/** `-42.1%` / `+3.0%` relative to a baseline; empty when there is none. */
export function formatChange(value: number, baseline: number): string {
  if (baseline === 0) return '';
  const change = ((value - baseline) / baseline) * 100;
  const sign = change > 0 ? '+' : change < 0 ? '-' : '±';
  return `${sign}${oneDecimal.format(Math.abs(change))}%`;
}

/** Human size for prose (ls uses exact bytes): 1,536 -> "1.5 KiB". */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${integer.format(value)} B` : `${oneDecimal.format(value)} ${units[unit]}`;
}

/** Age for `outputs ls`: "45s", "12m", "3h", "5d". */
export function formatAge(milliseconds: number): string {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${integer.format(Math.floor(seconds / 86_400))}d`;
}

/** `items` as a sentence lists them: `a, b and c` (or `a, b or c`). */
export function listWords(items: readonly string[], conjunction: 'and' | 'or'): string {
  if (items.length < 2) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${conjunction} ${items.at(-1)}`;
}
