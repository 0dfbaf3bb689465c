/**
 * One session: what it is (client, model, when), its figures, the prompt chart and the list of
 * its offloaded outputs.
 */
import type {
  SessionDetail,
  SessionOutputs,
  SessionSummary,
} from '../../src/dashboard/api-types.js';
import { h } from './dom.js';
import { formatInteger, formatShare, formatTime } from './format.js';
import { outputsList } from './outputs-list.js';
import { promptChart } from './prompt-chart.js';
import { statCards, unreachableCards, type StatCard } from './stat-card.js';

export interface SessionInput {
  summary: SessionSummary;
  detail: SessionDetail;
  outputs: SessionOutputs;
  /** The masking settings file that applies to the session's client (a gateway's only). */
  settingsFile?: string | undefined;
}

function extrasTable(extras: Record<string, number>): HTMLElement {
  return h(
    'table',
    { class: 'facts' },
    h(
      'tbody',
      {},
      ...Object.entries(extras).map(([name, value]) =>
        h('tr', {}, h('th', {}, name), h('td', { class: 'num' }, formatInteger(value))),
      ),
    ),
  );
}

/** Who the session is: its client, model and times, and the settings file its client's requests read. */
function sessionFacts(summary: SessionSummary, settingsFile: string | undefined): HTMLElement {
  return h(
    'p',
    { class: 'session-facts' },
    h('span', { class: 'client' }, summary.client),
    ' · ',
    h('span', { class: 'model' }, summary.model || '?'),
    summary.sideOnly ? h('span', { class: 'badge' }, 'side requests only') : null,
    ` · started ${formatTime(summary.startedAt)} · last request ${formatTime(summary.lastAt)}`,
    settingsFile ? ' · masking settings ' : null,
    settingsFile ? h('code', { class: 'settings-file' }, settingsFile) : null,
  );
}

function sessionCards(summary: SessionSummary): StatCard[] {
  return [
    {
      metric: 'requests',
      label: 'Requests',
      value: summary.requests,
      shown: formatInteger(summary.requests),
      note:
        summary.sideRequests > 0
          ? h(
              'span',
              { 'data-metric': 'sideRequests', 'data-value': summary.sideRequests },
              `${formatInteger(summary.sideRequests)} side (router, checks, titles)`,
            )
          : undefined,
    },
    {
      metric: 'contextTokens',
      label: 'Context now',
      value: summary.contextTokens,
      shown: formatInteger(summary.contextTokens),
      note: `peak ${formatInteger(summary.peakContextTokens)}`,
    },
    {
      metric: 'cacheHitShare',
      label: 'Cache hits',
      value: summary.cacheHitShare,
      shown: formatShare(summary.cacheHitShare),
      note: `${formatInteger(summary.cachedTokens)} of ${formatInteger(summary.promptTokens)}`,
    },
    // Next to the cache hits, and only for a provider that reports writes (Anthropic): a Gemini
    // or OpenAI session has no such figure, and a card of 0 would suggest one.
    ...(summary.cacheWriteTokens > 0
      ? [
          {
            metric: 'cacheWriteTokens',
            label: 'Cache writes',
            value: summary.cacheWriteTokens,
            shown: formatInteger(summary.cacheWriteTokens),
            note: 'prompt tokens written to the cache',
          },
        ]
      : []),
    {
      metric: 'tokensKeptOut',
      label: 'Kept out',
      value: summary.tokensKeptOut,
      shown: formatInteger(summary.tokensKeptOut),
      note: 'prompt tokens, estimate',
    },
    {
      metric: 'maskedOutputs',
      label: 'Outputs offloaded',
      value: summary.maskedOutputs,
      shown: formatInteger(summary.maskedOutputs),
    },
    {
      metric: 'failures',
      label: 'Pass failures',
      value: summary.failures,
      shown: formatInteger(summary.failures),
    },
    ...unreachableCards(summary.unreachable, summary.unreachableUpstream),
  ];
}

/** The session's side requests, counted in the figures but not charted. */
function sideRequestsNote(detail: SessionDetail): HTMLElement | null {
  if (!detail.sideRequests) return null;
  const promptTokens = detail.sideRequests.reduce(
    (sum, record) => sum + (record.promptTokens ?? 0),
    0,
  );
  return h(
    'p',
    { class: 'muted' },
    `Not charted: ${formatInteger(detail.sideRequests.length)} side request(s) of this session ` +
      `(a model router, a check or a session title), ` +
      `${formatInteger(promptTokens)} prompt tokens; ` +
      'they count in the figures above.',
  );
}

export function sessionView(input: SessionInput): HTMLElement {
  const { summary, detail, outputs } = input;
  return h(
    'div',
    { class: 'session', 'data-session': summary.id },
    h('a', { href: '#/', class: 'back' }, '← All sessions'),
    h('h1', {}, 'Session ', h('span', { class: 'session-id' }, summary.id)),
    sessionFacts(summary, input.settingsFile),
    statCards(sessionCards(summary)),
    h('h2', {}, 'Prompt tokens per request'),
    promptChart(detail.requests),
    sideRequestsNote(detail),
    detail.extras ? h('h2', {}, 'From the metric exports') : null,
    detail.extras ? extrasTable(detail.extras) : null,
    h('h2', {}, `Offloaded outputs (${formatInteger(outputs.outputs.length)})`),
    outputsList(summary.id, outputs.outputs),
  );
}
