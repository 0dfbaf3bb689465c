/**
 * The settings a replay ran with, for the HTML report: toolmask's resolved configuration (the
 * keys that shape its decisions) and gemini-cli's thresholds, as key/value rows.
 */
import { escapeHtml } from './escape-html.js';
import { formatInteger } from './format.js';
import type { ReplayReport } from './replay-report.js';

/** toolmask's keys that change what a replay masks (retention and read-back do not). */
const TOOLMASK_KEYS = [
  'enabled',
  'toolProtectionThreshold',
  'minPrunableTokensThreshold',
  'protectLatestTurn',
  'maxOutputTokens',
  'exemptTools',
] as const;

function formatValue(value: unknown): string {
  if (typeof value === 'number') return formatInteger(value);
  if (Array.isArray(value)) return value.length ? value.join(', ') : '(none)';
  return String(value);
}

function rows(title: string, where: string, entries: Array<[string, unknown]>): string {
  const body = entries
    .map(
      ([key, value]) =>
        `<tr><th><code>${escapeHtml(key)}</code></th><td>${escapeHtml(formatValue(value))}</td></tr>`,
    )
    .join('\n');
  return `<tr class="group"><th colspan="2">${escapeHtml(title)} <span class="where">${escapeHtml(where)}</span></th></tr>\n${body}`;
}

export function settingsTableHtml(report: ReplayReport): string {
  const groups: string[] = [];
  const { toolmask, geminiCli } = report.settings;
  if (toolmask) {
    groups.push(
      rows(
        'toolmask',
        'experimental.toolOutputMasking',
        TOOLMASK_KEYS.map((key) => [key, toolmask[key]]),
      ),
    );
  }
  if (geminiCli) {
    groups.push(
      rows('gemini-cli', 'contextManagement.tools.outputMasking', Object.entries(geminiCli)),
    );
  }
  const pricing: Array<[string, unknown]> = [
    ['cached token price', `${report.pricing.cacheDiscount} of an uncached token`],
  ];
  if (report.pricing.provider) pricing.unshift(['cache rules', report.pricing.provider]);
  const writePrice = report.pricing.cacheWritePrice ?? 1;
  if (writePrice !== 1) pricing.push(['cache write price', `${writePrice} x an uncached token`]);
  if (report.inputs.concat > 1) {
    pricing.push(['tasks chained per session', report.inputs.concat]);
    pricing.push([
      'chained task starts',
      report.pricing.warmTaskStarts ? 'cache-warm' : 'cache-cold',
    ]);
  }
  groups.push(rows('pricing', '', pricing));
  return `<table class="settings">\n${groups.join('\n')}\n</table>`;
}
