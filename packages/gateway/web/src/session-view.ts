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
import { failedRequestsList } from './failed-requests.js';
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
  /** The read-back tool's name as this session's client sees it, where the server knows it. */
  readToolName?: string;
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

/**
 * Who the session is: its client, model and times, the settings file its client's requests read;
 * what it was asked, where, and how it reads back.
 */
function sessionFacts(
  summary: SessionSummary,
  readToolName: string | undefined,
  settingsFile: string | undefined,
): HTMLElement[] {
  const named = [
    summary.prompt ? h('p', { class: 'session-prompt-line' }, `“${summary.prompt}”`) : null,
    summary.folder || readToolName
      ? h(
          'p',
          { class: 'session-where-line muted' },
          summary.folder ? 'in ' : null,
          summary.folder ? h('span', { class: 'session-folder' }, summary.folder) : null,
          summary.folder && readToolName ? ' · ' : null,
          readToolName ? 'reads outputs back with ' : null,
          readToolName ? h('code', { class: 'read-tool-name' }, readToolName) : null,
        )
      : null,
  ];
  return [
    h(
      'p',
      { class: 'session-facts' },
      h('span', { class: 'client' }, summary.client),
      ' · ',
      h('span', { class: 'model' }, summary.model || '?'),
      summary.sideOnly ? h('span', { class: 'badge' }, 'side requests only') : null,
      ` · started ${formatTime(summary.startedAt)} · last request ${formatTime(summary.lastAt)}`,
      settingsFile ? ' · masking settings ' : null,
      settingsFile ? h('code', { class: 'settings-file' }, settingsFile) : null,
    ),
    ...named.filter((line): line is HTMLParagraphElement => line !== null),
  ];
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
    ...(summary.failed > 0
      ? [
          {
            metric: 'failed',
            label: 'Failed requests',
            value: summary.failed,
            shown: formatInteger(summary.failed),
            note: 'listed below the chart',
          },
        ]
      : []),
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
    ...sessionFacts(summary, input.readToolName, input.settingsFile),
    statCards(sessionCards(summary)),
    h('h2', {}, 'Prompt tokens per request'),
    promptChart(detail.requests),
    sideRequestsNote(detail),
    ...failedRequestsList(detail.failedRequests, { withSession: false }),
    detail.extras ? h('h2', {}, 'From the metric exports') : null,
    detail.extras ? extrasTable(detail.extras) : null,
    h('h2', {}, `Offloaded outputs (${formatInteger(outputs.outputs.length)})`),
    outputsList(summary.id, outputs.outputs),
  );
}
