/**
 * How the page writes numbers, sizes, shares, money and times: one fixed locale (en-US digit
 * grouping) so that what the page shows is the same on every machine, and tests can compare it.
 */

const INTEGER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function formatInteger(value: number): string {
  return INTEGER.format(Math.round(value));
}

/** 1234 → 1.2k, 3456789 → 3.5M (axis labels, tight cells). */
export function formatCompact(value: number): string {
  const magnitude = Math.abs(value);
  if (magnitude >= 1e9) return `${(value / 1e9).toFixed(1)}G`;
  if (magnitude >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (magnitude >= 1e3) return `${(value / 1e3).toFixed(1)}k`;
  return formatInteger(value);
}

/** A share (0..1) as a percentage with one decimal. */
export function formatShare(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${formatInteger(bytes)} B`;
}

/** US dollars: cents for amounts from $1, four decimals below. */
export function formatMoney(dollars: number): string {
  return dollars >= 1 || dollars === 0 ? `$${dollars.toFixed(2)}` : `$${dollars.toFixed(4)}`;
}

function twoDigits(value: number): string {
  return String(value).padStart(2, '0');
}

/** Local date as `YYYY-MM-DD`. */
export function formatDate(epochMs: number): string {
  const date = new Date(epochMs);
  return `${date.getFullYear()}-${twoDigits(date.getMonth() + 1)}-${twoDigits(date.getDate())}`;
}

/** Local clock time as `HH:MM`, or `HH:MM:SS` with `seconds`. */
export function formatClock(epochMs: number, seconds = false): string {
  const date = new Date(epochMs);
  const clock = `${twoDigits(date.getHours())}:${twoDigits(date.getMinutes())}`;
  return seconds ? `${clock}:${twoDigits(date.getSeconds())}` : clock;
}

/** Local time as `YYYY-MM-DD HH:MM`. */
export function formatTime(epochMs: number): string {
  return `${formatDate(epochMs)} ${formatClock(epochMs)}`;
}

/** 93784000 → `1d 2h 3m`; under a minute in seconds. */
export function formatDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3_600);
  const minutes = Math.floor((seconds % 3_600) / 60);
  return [days ? `${days}d` : '', days || hours ? `${hours}h` : '', `${minutes}m`]
    .filter(Boolean)
    .join(' ');
}
