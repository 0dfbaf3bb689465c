/**
 * The dashboard page: a hash router over three views (overview `#/`, one session
 * `#/session/<id>`, settings `#/settings`), each drawn from the API, and drawn again when the
 * server says new figures are there (server-sent events, `/api/events`) or the window is resized.
 * `document.body.dataset.view` and `.renders` say what is on screen, for tests and scripts.
 *
 * The first view is drawn from the figures the server wrote into the page (api.ts
 * `takeFirstView`), before any fetch: the page shows the overview on its first frame, and a
 * static snapshot of it does too.
 */
import type { DashboardStatus, FirstView } from '../../src/dashboard/api-types.js';
import { api, ApiError, takeFirstView } from './api.js';
import { drawChartsIn } from './chart-frame.js';
import { byId, h } from './dom.js';
import { formatDuration } from './format.js';
import { overviewView } from './overview-view.js';
import { sessionView } from './session-view.js';
import type { SortState } from './sessions-table.js';
import { settingsView } from './settings-view.js';

type Route = { view: 'overview' } | { view: 'session'; id: string } | { view: 'settings' };

const state: {
  sort: SortState;
  status?: DashboardStatus;
  statusAt: number;
  /** Rebuilds the current view from the data it last fetched (a resize). */
  redraw?: () => HTMLElement;
} = {
  sort: { key: 'startedAt', descending: true },
  statusAt: 0,
};

let renderSequence = 0;
let renders = 0;

function routeOf(hash: string): Route {
  const session = /^#\/session\/(.+)$/.exec(hash);
  if (session) return { view: 'session', id: decodeURIComponent(session[1] as string) };
  if (hash === '#/settings') return { view: 'settings' };
  return { view: 'overview' };
}

function show(route: Route, content: HTMLElement): void {
  byId('view').replaceChildren(content);
  // Before the view is said to be on screen: its charts would otherwise wait for the next frame.
  drawChartsIn(content);
  for (const link of document.querySelectorAll<HTMLAnchorElement>('[data-nav]')) {
    const current = link.dataset['nav'] === (route.view === 'settings' ? 'settings' : 'overview');
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  document.body.dataset['view'] = route.view;
  document.body.dataset['renders'] = String(++renders);
}

function showFooter(): void {
  const status = state.status;
  if (!status) return;
  const uptime = status.uptimeMs + (Date.now() - state.statusAt);
  byId('source-label').textContent = status.source === 'gateway' ? 'gateway' : 'telemetry outfile';
  byId('footer').textContent =
    `toolmask ${status.version} · ${status.source} · up ${formatDuration(uptime)}`;
}

/** Figures the page came with, used by the first render only. */
let firstView: FirstView | undefined = takeFirstView();

async function build(route: Route): Promise<() => HTMLElement> {
  const preloaded = firstView;
  firstView = undefined;
  const status = preloaded?.status ?? (await api.status());
  state.status = status;
  state.statusAt = Date.now();
  showFooter();
  if (route.view === 'settings') {
    return () => settingsView(status);
  }
  const report = preloaded?.sessions ?? (await api.sessions());
  if (route.view === 'session') {
    const summary = report.sessions.find((session) => session.id === route.id);
    if (!summary) {
      return () =>
        h(
          'div',
          { class: 'error' },
          h('p', {}, 'This session is not in the kept history.'),
          h('a', { href: '#/' }, '← All sessions'),
        );
    }
    // The first view of a session page is drawn before the page's load event (api.sessionNow).
    const [detail, outputs] = preloaded
      ? api.sessionNow(route.id)
      : await Promise.all([api.session(route.id), api.outputs(route.id)]);
    const settingsFile = status.settingsFiles?.[summary.client];
    const readToolName = status.readToolNames?.[summary.client];
    return () =>
      sessionView({
        summary,
        detail,
        outputs,
        settingsFile,
        ...(readToolName ? { readToolName } : {}),
      });
  }
  const timeline = preloaded?.timeline ?? (await api.timeline());
  return () =>
    overviewView({
      report,
      timeline,
      status,
      sort: state.sort,
      onSort: (sort) => {
        state.sort = sort;
        redraw();
      },
      onOpen: (id) => {
        location.hash = `#/session/${encodeURIComponent(id)}`;
      },
    });
}

function redraw(): void {
  if (state.redraw) show(routeOf(location.hash), state.redraw());
}

async function render(): Promise<void> {
  const sequence = ++renderSequence;
  const route = routeOf(location.hash);
  try {
    const draw = await build(route);
    if (sequence !== renderSequence) return; // a newer render started
    state.redraw = draw;
    show(route, draw());
  } catch (error) {
    if (sequence !== renderSequence) return;
    state.redraw = undefined;
    const message =
      error instanceof ApiError && error.status === 401
        ? 'This dashboard needs its auth token: open it once with ?token=<token>.'
        : `Could not load the figures: ${(error as Error).message}`;
    show(route, h('div', { class: 'error' }, h('p', {}, message)));
  }
}

let pending: number | undefined;
function scheduleRender(delayMs = 250): void {
  if (pending !== undefined) return;
  pending = window.setTimeout(() => {
    pending = undefined;
    void render();
  }, delayMs);
}

function followChanges(): void {
  const live = byId('live');
  const events = new EventSource('/api/events');
  events.addEventListener('open', () => {
    live.dataset['state'] = 'live';
    live.textContent = 'live';
    // Whatever happened while disconnected (a restart) is fetched again.
    scheduleRender(0);
  });
  events.addEventListener('change', () => scheduleRender());
  events.addEventListener('error', () => {
    live.dataset['state'] = 'reconnecting';
    live.textContent = 'reconnecting…';
  });
}

window.addEventListener('hashchange', () => {
  window.scrollTo(0, 0);
  void render();
});
// No redraw on resize: each chart follows its own box's width (chart-frame.ts).
window.setInterval(showFooter, 10_000);
void render();
followChanges();
