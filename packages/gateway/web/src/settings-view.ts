/**
 * The settings panel: what serves this page (version, uptime, source), the settings in force by
 * group, the read-back tool's name per client (each prefixes an MCP tool its own way), and the
 * server's price table (its money figures' prices, with their date and sources;
 * a person changes them with `prices.json` in the state folder: docs/dashboard.md, Prices).
 */
import type { DashboardStatus, PriceTable, SettingValue } from '../../src/dashboard/api-types.js';
import { h } from './dom.js';
import { formatDuration } from './format.js';

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

/** USD per 1M prompt tokens, each model's row (the longest prefix of a model's name prices it). */
function priceTable(prices: PriceTable): HTMLElement[] {
  const header = ['Model (prefix)', 'Input', 'Cache read', 'Cache write'];
  return [
    h(
      'p',
      { class: 'muted' },
      `USD per 1M prompt tokens, as of ${prices.date}. Sources: ${prices.sources.join('; ')}. Change or add rows with prices.json in the state folder.`,
    ),
    h(
      'table',
      { class: 'facts', id: 'price-table' },
      h('thead', {}, h('tr', {}, ...header.map((label) => h('th', {}, label)))),
      h(
        'tbody',
        {},
        ...prices.models.map((row) =>
          h(
            'tr',
            { class: 'price-row', 'data-model': row.model },
            h('td', {}, row.model),
            h('td', { class: 'num' }, `$${row.input}`),
            h('td', { class: 'num' }, `$${row.cacheRead}`),
            h('td', { class: 'num' }, `$${row.cacheWrite}`),
          ),
        ),
      ),
    ),
  ];
}

export function settingsView(status: DashboardStatus): HTMLElement {
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
    ...(status.readToolNames
      ? [
          h('h2', {}, "The read-back tool, as each client's model sees it"),
          factsTable(status.readToolNames as Record<string, SettingValue>, 'read-tool-names'),
        ]
      : []),
    h('h2', {}, 'Prices'),
    ...priceTable(status.prices),
  );
}
