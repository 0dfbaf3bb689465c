/**
 * The settings panel: what serves this page (version, uptime, source), the settings in force by
 * group, and the price table.
 */
import type { DashboardStatus, SettingValue } from '../../src/dashboard/api-types.js';
import { h } from './dom.js';
import { formatDuration } from './format.js';
import { priceEditor } from './price-editor.js';
import type { PriceRow } from './prices.js';

function shown(value: SettingValue): string {
  if (value === null) return '—';
  if (Array.isArray(value)) return value.length === 0 ? '(none)' : value.join(', ');
  return String(value);
}

function factsTable(entries: Record<string, SettingValue>, id?: string): HTMLElement {
  return h(
    'table',
    { class: 'facts', id },
    h(
      'tbody',
      {},
      ...Object.entries(entries).map(([key, value]) =>
        h('tr', { 'data-key': key }, h('th', {}, key), h('td', {}, shown(value))),
      ),
    ),
  );
}

export function settingsView(
  status: DashboardStatus,
  prices: PriceRow[],
  onPrices: (rows: PriceRow[]) => void,
): HTMLElement {
  const about = {
    version: status.version,
    uptime: formatDuration(status.uptimeMs),
    source: status.source,
    ...status.details,
  };
  return h(
    'div',
    { class: 'settings' },
    h('h1', {}, 'Settings'),
    h('h2', {}, 'This server'),
    factsTable(about, 'about'),
    ...Object.entries(status.settings).flatMap(([group, entries]) => [
      h('h2', {}, `Settings in force: ${group}`),
      factsTable(entries, `settings-${group}`),
    ]),
    h('h2', {}, 'Prices'),
    priceEditor(prices, onPrices),
  );
}
