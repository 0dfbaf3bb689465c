/**
 * The page's reads of the dashboard API (same origin; the auth cookie, when there is one, goes
 * along by itself). Types come from the server's own declaration of the API.
 */
import type {
  DashboardStatus,
  FirstView,
  OutputSlice,
  SessionDetail,
  SessionOutputs,
  SessionsReport,
  Timeline,
} from '../../src/dashboard/api-types.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, {
    credentials: 'same-origin',
    headers: { accept: 'application/json' },
  });
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    const message = (body as { error?: { message?: string } } | undefined)?.error?.message;
    throw new ApiError(response.status, message ?? `${path}: HTTP ${response.status}`);
  }
  return body as T;
}

/**
 * `getJson` answered before it returns (a synchronous request). Only for the first view of a
 * session page, which the server cannot write into the page (its route is in the address's
 * fragment): the page is drawn before its load event, so a `chromium --headless --screenshot`
 * of it shows the session, not "Loading…" (issue 35).
 */
function getJsonNow<T>(path: string): T {
  const request = new XMLHttpRequest();
  request.open('GET', path, false);
  request.withCredentials = true;
  request.setRequestHeader('accept', 'application/json');
  request.send();
  let body: unknown;
  try {
    body = JSON.parse(request.responseText);
  } catch {
    body = undefined;
  }
  if (request.status < 200 || request.status >= 300) {
    const message = (body as { error?: { message?: string } } | undefined)?.error?.message;
    throw new ApiError(request.status, message ?? `${path}: HTTP ${request.status}`);
  }
  return body as T;
}

const segment = encodeURIComponent;

export const api = {
  sessions: () => getJson<SessionsReport>('/api/sessions'),
  session: (id: string) => getJson<SessionDetail>(`/api/sessions/${segment(id)}`),
  outputs: (id: string) => getJson<SessionOutputs>(`/api/sessions/${segment(id)}/outputs`),
  outputSlice: (session: string, file: string, offset: number) =>
    getJson<OutputSlice>(
      `/api/outputs?session=${segment(session)}&file=${segment(file)}&offset=${offset}`,
    ),
  /** A session's requests and outputs at once, before the page's load event (getJsonNow). */
  sessionNow: (id: string): [SessionDetail, SessionOutputs] => [
    getJsonNow<SessionDetail>(`/api/sessions/${segment(id)}`),
    getJsonNow<SessionOutputs>(`/api/sessions/${segment(id)}/outputs`),
  ],
  status: () => getJson<DashboardStatus>('/api/status'),
  timeline: () => getJson<Timeline>('/api/timeline'),
};

/**
 * The figures the server wrote into the page (`<meta name="toolmask-first-view">`), once: the
 * first view is drawn from them without a fetch; every later one asks the API. Undefined when the
 * page came without them, or they do not parse (the page then fetches as usual).
 */
export function takeFirstView(): FirstView | undefined {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="toolmask-first-view"]');
  if (!meta) return undefined;
  meta.remove();
  try {
    return JSON.parse(meta.content) as FirstView;
  } catch {
    return undefined;
  }
}
