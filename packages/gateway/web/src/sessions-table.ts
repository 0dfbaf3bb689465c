/**
 * The sessions table, two rows a session: its name across the whole width (the person's first
 * prompt, its short id and the working folder, as its first request named them: a column of its
 * own would squeeze the figures off a 900 px window), then its figures: client, model, started,
 * requests, context now, peak, cache hit share,
 * cache writes (only when a session of the table has any: Gemini and OpenAI report none, and a
 * column of dashes would tell their reader nothing), masked outputs, net billed against no masking
 * (money where the model has a price; a dash where the provider reported no cache figures). A click on a column header sorts by it (again: the other way); a click on a
 * row, or Enter on it, opens the session.
 */
import type { SessionSummary } from '../../src/dashboard/api-types.js';
import { h, type Child } from './dom.js';
import { formatInteger, formatShare, formatTime } from './format.js';
import { moneySaved, netCell, netNote, priced } from './net-billed.js';

export type SortKey =
  | 'client'
  | 'model'
  | 'startedAt'
  | 'requests'
  | 'contextTokens'
  | 'peakContextTokens'
  | 'cacheHitShare'
  | 'cacheWriteTokens'
  | 'maskedOutputs'
  | 'netSavedTokens';

export interface SortState {
  key: SortKey;
  descending: boolean;
}

interface Column {
  key: SortKey;
  label: string;
  numeric: boolean;
  cell: (session: SessionSummary) => Child;
}

/** A date and a time that may go on two lines, each whole. */
function started(session: SessionSummary): HTMLElement {
  const [day, clock] = formatTime(session.startedAt).split(' ');
  return h(
    'span',
    {},
    h('span', { class: 'nowrap' }, day),
    ' ',
    h('span', { class: 'nowrap' }, clock),
  );
}

/** The short id shown for a session (the whole id is in the session view and its address). */
export function shortId(id: string): string {
  return id.slice(0, 8);
}

/**
 * Which session it is, on one line cut with an ellipsis (whole in its tooltip): the first prompt,
 * the short id and the folder.
 */
function nameRow(session: SessionSummary, span: number): HTMLTableRowElement {
  const prompt = session.prompt ?? (session.sideOnly ? '(side requests)' : '—');
  return h(
    'tr',
    { class: 'session-name-row' },
    h(
      'td',
      { colspan: span },
      h(
        'div',
        {
          class: 'session-name',
          title: [prompt, session.id, session.folder].filter(Boolean).join('\n'),
        },
        h('span', { class: 'session-prompt' }, prompt),
        h('span', { class: 'session-short-id' }, shortId(session.id)),
        session.folder ? h('span', { class: 'session-folder' }, session.folder) : null,
      ),
    ),
  );
}

/** The client, and a badge when the session is nothing but side requests. */
function client(session: SessionSummary): Child {
  if (!session.sideOnly) return session.client;
  return h('span', {}, session.client, ' ', h('span', { class: 'badge' }, 'side requests'));
}

/** The requests, with the side requests among them under the figure. */
function requests(session: SessionSummary): Child {
  if (session.sideRequests === 0 || session.sideOnly) return formatInteger(session.requests);
  return h(
    'span',
    {},
    formatInteger(session.requests),
    h('span', { class: 'side-note' }, `${formatInteger(session.sideRequests)} side`),
  );
}

/** A numeric column of a session's count. */
function count(
  key: 'contextTokens' | 'peakContextTokens' | 'maskedOutputs' | 'cacheWriteTokens',
  label: string,
): Column {
  return { key, label, numeric: true, cell: (session) => formatInteger(session[key]) };
}

/** Prompt tokens written to the provider's cache; empty for a session whose provider writes none. */
const CACHE_WRITES: Column = {
  key: 'cacheWriteTokens',
  label: 'Cache writes',
  numeric: true,
  cell: (s) => (s.cacheWriteTokens > 0 ? formatInteger(s.cacheWriteTokens) : ''),
};

const COLUMNS: readonly Column[] = [
  { key: 'client', label: 'Client', numeric: false, cell: client },
  { key: 'model', label: 'Model', numeric: false, cell: (s) => s.model || '?' },
  { key: 'startedAt', label: 'Started', numeric: false, cell: started },
  { key: 'requests', label: 'Requests', numeric: true, cell: requests },
  count('contextTokens', 'Context now'),
  count('peakContextTokens', 'Peak'),
  {
    key: 'cacheHitShare',
    label: 'Cache hits',
    numeric: true,
    cell: (s) => formatShare(s.cacheHitShare),
  },
  CACHE_WRITES,
  count('maskedOutputs', 'Masked'),
  {
    key: 'netSavedTokens',
    label: 'Net',
    numeric: true,
    cell: (s) =>
      h(
        'span',
        {
          title: netNote(s),
          'data-net':
            s.requestsNetMeasured > 0 ? String(priced(s) ? moneySaved(s) : s.netSavedTokens) : null,
        },
        netCell(s),
      ),
  },
];

/** The columns for these sessions: cache writes only when one of them has some. */
function columnsFor(sessions: readonly SessionSummary[]): readonly Column[] {
  const writes = sessions.some((session) => session.cacheWriteTokens > 0);
  return writes ? COLUMNS : COLUMNS.filter((column) => column !== CACHE_WRITES);
}

function sorted(sessions: readonly SessionSummary[], sort: SortState): SessionSummary[] {
  const direction = sort.descending ? -1 : 1;
  return [...sessions].sort((a, b) => {
    const left = a[sort.key];
    const right = b[sort.key];
    const order =
      typeof left === 'number' && typeof right === 'number'
        ? left - right
        : String(left).localeCompare(String(right));
    return order * direction || b.lastAt - a.lastAt;
  });
}

export function sessionsTable(
  sessions: readonly SessionSummary[],
  sort: SortState,
  onSort: (sort: SortState) => void,
  onOpen: (id: string) => void,
): HTMLElement {
  if (sessions.length === 0) {
    return h(
      'p',
      { class: 'empty' },
      'No sessions yet. Start a client through this gateway (toolmask gemini, qwen, claude, …) and its sessions show up here.',
    );
  }
  const columns = columnsFor(sessions);
  const header = h(
    'tr',
    {},
    ...columns.map((column) => {
      const active = column.key === sort.key;
      const button = h(
        'button',
        { type: 'button', class: 'sort', 'data-sort': column.key },
        column.label,
        active ? (sort.descending ? ' ▼' : ' ▲') : '',
      );
      button.addEventListener('click', () =>
        onSort({ key: column.key, descending: active ? !sort.descending : column.numeric }),
      );
      return h(
        'th',
        {
          class: column.numeric ? 'num' : null,
          'aria-sort': active ? (sort.descending ? 'descending' : 'ascending') : null,
        },
        button,
      );
    }),
  );
  const rows = sorted(sessions, sort).map((session) => {
    const row = h(
      'tr',
      { class: 'session-row', tabindex: 0, 'data-session': session.id },
      ...columns.map((column) =>
        h(
          'td',
          { class: column.numeric ? 'num' : column.key, 'data-column': column.key },
          column.cell(session),
        ),
      ),
    );
    row.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') onOpen(session.id);
    });
    // One group a session: its name row and its figures, opened by a click on either.
    const group = h(
      'tbody',
      { class: 'session-group', 'data-session': session.id },
      nameRow(session, columns.length),
      row,
    );
    group.addEventListener('click', () => onOpen(session.id));
    return group;
  });
  return h('table', { class: 'sessions', id: 'sessions-table' }, h('thead', {}, header), ...rows);
}
