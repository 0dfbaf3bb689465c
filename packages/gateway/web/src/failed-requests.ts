/**
 * The requests that got no whole answer (the server's `failedRequests`: an upstream that could not
 * be reached, a 4xx or 5xx from it, a client that went away): when, status, why, and on the
 * overview the session it belongs to (a link). Nothing is shown when there were none.
 */
import type { FailedRequest } from '../../src/dashboard/api-types.js';
import { h } from './dom.js';
import { formatInteger, formatTime } from './format.js';
import { shortId } from './sessions-table.js';

const KIND_LABEL: Record<FailedRequest['kind'], string> = {
  unreachable: 'unreachable',
  'upstream-error': 'upstream error',
  'client-aborted': 'client left',
};

function statusOf(failed: FailedRequest): string {
  return failed.status > 0 ? String(failed.status) : '—';
}

/** The list, with its heading; null when there is nothing to list. */
export function failedRequestsList(
  failed: readonly FailedRequest[] | undefined,
  options: { total?: number; withSession: boolean },
): HTMLElement[] {
  if (!failed || failed.length === 0) return [];
  const total = Math.max(options.total ?? failed.length, failed.length);
  const heading =
    total > failed.length
      ? `Failed or aborted requests (the newest ${formatInteger(failed.length)} of ${formatInteger(total)})`
      : `Failed or aborted requests (${formatInteger(total)})`;
  const header = ['Time', 'Status', 'What', 'Reason', ...(options.withSession ? ['Session'] : [])];
  const rows = failed.map((request) =>
    h(
      'tr',
      { class: 'failed-request', 'data-kind': request.kind, 'data-status': request.status },
      h('td', { class: 'nowrap' }, formatTime(request.at)),
      h('td', { class: 'num' }, statusOf(request)),
      h('td', { class: 'nowrap' }, KIND_LABEL[request.kind]),
      h('td', { class: 'failure-reason' }, request.reason),
      options.withSession
        ? h(
            'td',
            { class: 'nowrap' },
            h(
              'a',
              { href: `#/session/${encodeURIComponent(request.session)}` },
              shortId(request.session),
            ),
            ` ${request.client}`,
          )
        : null,
    ),
  );
  return [
    h('h2', {}, heading),
    h(
      'div',
      { class: 'table-box' },
      h(
        'table',
        { class: 'failed', id: 'failed-requests' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...header.map((label) => h('th', { class: label === 'Status' ? 'num' : null }, label)),
          ),
        ),
        h('tbody', {}, ...rows),
      ),
    ),
  ];
}
