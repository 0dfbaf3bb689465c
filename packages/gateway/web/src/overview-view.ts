/**
 * The overview: the totals of the kept history (requests, the provider's prompt and cached
 * tokens, toolmask's estimate of the tokens kept out, net billed against no masking as the server
 * measured it from the provider's usage (net-billed.ts), outputs offloaded, pass failures, requests whose upstream could not be reached), the chart of prompt tokens over time across sessions, then the
 * sessions table.
 */
import type { DashboardStatus, SessionsReport, Timeline } from '../../src/dashboard/api-types.js';
import { h } from './dom.js';
import { failedRequestsList } from './failed-requests.js';
import { formatInteger, formatShare } from './format.js';
import { moneySaved, netCell, netNote, priced } from './net-billed.js';
import { sessionsTable, type SortState } from './sessions-table.js';
import { statCards, unreachableCards, type StatCard } from './stat-card.js';
import { timelineChart } from './timeline-chart.js';

export interface OverviewInput {
  report: SessionsReport;
  timeline: Timeline;
  status?: DashboardStatus;
  sort: SortState;
  onSort: (sort: SortState) => void;
  onOpen: (id: string) => void;
}

function historyNote(status: DashboardStatus | undefined): string {
  const days = status?.settings['gateway']?.['retentionDays'];
  if (typeof days === 'number') {
    return days > 0 ? `History kept ${days} days.` : 'History kept without limit.';
  }
  return status?.source === 'telemetry-outfile' ? 'From the telemetry outfile.' : '';
}

type Totals = SessionsReport['totals'];

/** What went through: requests, the provider's prompt tokens and what it cached. */
function trafficCards(totals: Totals): StatCard[] {
  return [
    {
      metric: 'requests',
      label: 'Requests',
      value: totals.requests,
      shown: formatInteger(totals.requests),
      note:
        totals.sideRequests > 0
          ? `${formatInteger(totals.sideRequests)} side (router, checks, titles)`
          : undefined,
    },
    {
      metric: 'promptTokens',
      label: 'Prompt tokens',
      value: totals.promptTokens,
      shown: formatInteger(totals.promptTokens),
      note: 'as the provider reported',
    },
    {
      metric: 'cachedTokens',
      label: 'Cached tokens',
      value: totals.cachedTokens,
      shown: formatInteger(totals.cachedTokens),
      note: h(
        'span',
        {},
        h(
          'span',
          { 'data-metric': 'cacheHitShare', 'data-value': totals.cacheHitShare },
          formatShare(totals.cacheHitShare),
        ),
        // Writes only where a provider reports them (Anthropic): no "0 written" under Gemini's.
        totals.cacheWriteTokens > 0
          ? h(
              'span',
              { 'data-metric': 'cacheWriteTokens', 'data-value': totals.cacheWriteTokens },
              ` · ${formatInteger(totals.cacheWriteTokens)} written`,
            )
          : null,
      ),
    },
  ];
}

/**
 * What masking did: the context it kept smaller, the bill against no masking, outputs offloaded,
 * failures. The first counts prompt size, not money: a short session can keep tokens out of the
 * context and still bill more (each break re-writes the cache); the second card is the bill.
 */
function maskingCards(totals: Totals, sessions: SessionsReport['sessions']): StatCard[] {
  return [
    {
      metric: 'tokensKeptOut',
      label: 'Kept out of the context',
      value: totals.tokensKeptOut,
      shown: formatInteger(totals.tokensKeptOut),
      note: 'prompt tokens summed over requests, estimate; context size, not the bill',
      hint: "Context, not the bill: summed over requests, what the masked outputs would have added to each prompt, minus their snippets. What masking did to the bill, cache writes included, is 'Billed vs no masking'.",
    },
    {
      metric: 'netSaved',
      label: 'Billed vs no masking',
      value: priced(totals) ? moneySaved(totals) : totals.netSavedTokens,
      shown: totals.requestsNetMeasured === 0 ? '—' : netCell(totals),
      note: h('a', { href: '#/settings' }, netNote(totals)),
      hint: "From the provider's reported usage: what was billed, against what the unmasked prompts would have billed with the same cache rules (reads and writes at the provider's prices).",
    },
    {
      metric: 'maskedOutputs',
      label: 'Outputs offloaded',
      value: totals.maskedOutputs,
      shown: formatInteger(totals.maskedOutputs),
    },
    {
      metric: 'failures',
      label: 'Pass failures',
      value: totals.failures,
      shown: formatInteger(totals.failures),
      note: totals.failures > 0 ? 'outputs left whole after an error' : 'none',
    },
    ...failedCards(totals.failed),
    // The newest session's unreachable upstream names it (sessions come newest first).
    ...unreachableCards(
      totals.unreachable,
      sessions.find((session) => session.unreachableUpstream)?.unreachableUpstream,
    ),
  ];
}

/** Requests without a whole answer, listed under the sessions; no card when there were none. */
function failedCards(failed: number): StatCard[] {
  if (!(failed > 0)) return [];
  return [
    {
      metric: 'failed',
      label: 'Failed requests',
      value: failed,
      shown: formatInteger(failed),
      // Plain text: a `#…` link would go through the page's hash router, not scroll.
      note: 'unreachable, refused or aborted: listed under the sessions',
    },
  ];
}

export function overviewView(input: OverviewInput): HTMLElement {
  const { totals, sessions } = input.report;
  const cards = statCards([...trafficCards(totals), ...maskingCards(totals, sessions)]);
  return h(
    'div',
    { class: 'overview' },
    h(
      'div',
      { class: 'title-row' },
      h('h1', {}, 'Overview'),
      h(
        'span',
        { class: 'muted' },
        `${formatInteger(totals.sessions)} session(s). ${historyNote(input.status)}`,
      ),
    ),
    cards,
    h('h2', {}, 'Prompt tokens over time, all sessions'),
    timelineChart(input.timeline),
    h('h2', {}, 'Sessions'),
    h(
      'div',
      { class: 'table-box' },
      sessionsTable(sessions, input.sort, input.onSort, input.onOpen),
    ),
    ...failedRequestsList(input.report.failedRequests, { total: totals.failed, withSession: true }),
  );
}
