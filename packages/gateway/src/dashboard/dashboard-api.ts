/**
 * The dashboard's JSON API over a `DashboardSource`, read-only (GET):
 *
 * - `/api/sessions[?since=<epoch ms>]`: every session of the kept history, folded, with totals;
 * - `/api/sessions/<id>`: one session's requests, oldest first, and the side requests folded in;
 * - `/api/sessions/<id>/outputs`: its offloaded outputs (tool, call id, size, preview);
 * - `/api/outputs?session=<id>&file=<file>[&offset=<byte>]`: a slice of one output's text, found
 *   and confined like `read_tool_output` (output-text.ts);
 * - `/api/timeline`: prompt tokens sent and without masking over time, across sessions;
 * - `/api/status`: settings in force, version, uptime;
 * - `/api/events`: server-sent `change` events (change-feed.ts).
 *
 * Everything is JSON with `nosniff`: an output's text is data for the page, never markup.
 */
import { describeError } from '@toolmask/core/errors';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ToolOutputReadError, type ToolOutputReadErrorCode } from '@toolmask/core/storage';
import { ReadSlotsFullError } from '../errors.js';
import type { UsageQuery } from '../state/stores.js';
import { failedRequests } from '../usage/failed-requests.js';
import { sessionOf } from '../usage/session-of.js';
import { priceOf, type PriceRow, type PriceTable } from '../usage/model-prices.js';
import { summarizeSessions } from '../usage/sessions.js';
import { summarizeTimeline } from '../usage/timeline.js';
import type {
  DashboardStatus,
  FirstView,
  OffloadedOutput,
  SessionDetail,
  SessionOutputs,
} from './api-types.js';
import type { ChangeFeed, Viewer } from './change-feed.js';
import { SESSION_ID, type DashboardSource, type OpenedOutput } from './dashboard-source.js';
import {
  clientHeaderEnd,
  readOutputPreview,
  readOutputSlice,
  withoutClientHeader,
} from './output-text.js';

export interface DashboardApiOptions {
  source: DashboardSource;
  feed: ChangeFeed;
  /** Whose changes `/api/events` streams (change-feed.ts), asked when one opens; unset: everyone's. */
  viewer?: () => Promise<Viewer>;
  /** Whose read slots `/api/outputs` takes (a team's owner, or `admin`). @default 'admin' */
  reader?: string;
  version: string;
  startedAt: number;
  now: () => number;
  /** The prices of the money figures (usage/model-prices.ts). */
  prices: PriceTable;
}

/** Previews read per listing at most (each is one small read). */
const MAX_PREVIEWS = 1_000;

const READ_ERROR_STATUS: Record<ToolOutputReadErrorCode, number> = {
  INVALID_PARAMS: 400,
  INVALID_PATTERN: 400,
  OUTSIDE: 403,
  OTHER_SESSION: 403,
  NOT_FOUND: 404,
  NOT_A_FILE: 400,
  READ_FAILED: 500,
  // The page went away mid-read (the request's own abort): nobody reads the status.
  ABORTED: 499,
};

function json(response: ServerResponse, status: number, value: unknown): void {
  response
    .writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    })
    .end(JSON.stringify(value));
}

function fail(response: ServerResponse, status: number, message: string): void {
  json(response, status, { error: { code: status, message: `toolmask dashboard: ${message}` } });
}

/**
 * The outputs with a preview that shows what the tool printed: the file's first lines where the
 * source left it empty, or where the snippet's preview starts with Codex's header (chunk id, wall
 * time, exit code, token count: output-text.ts), which would leave little else in the card.
 */
async function withPreviews(
  source: DashboardSource,
  id: string,
  outputs: OffloadedOutput[],
): Promise<OffloadedOutput[]> {
  const headed = (output: OffloadedOutput) => clientHeaderEnd(output.preview.split('\n')) > 0;
  const missing = outputs
    .filter((output) => output.preview === '' || headed(output))
    .slice(0, MAX_PREVIEWS);
  if (missing.length === 0) return outputs;
  const access = await source.outputAccess(id).catch(() => undefined);
  for (const output of missing) {
    const fallback = withoutClientHeader(output.preview);
    if (!access) {
      output.preview = fallback;
      continue;
    }
    try {
      output.preview = await readOutputPreview(output.file, access);
    } catch {
      output.preview =
        fallback || '(not readable: removed by retention, or outside the session folder)';
    }
  }
  return outputs;
}

async function readOutput(
  options: DashboardApiOptions,
  url: URL,
  response: ServerResponse,
): Promise<void> {
  const session = url.searchParams.get('session') ?? '';
  const file = url.searchParams.get('file') ?? '';
  const offset = Number(url.searchParams.get('offset') ?? '0');
  if (!SESSION_ID.test(session) || file === '' || !Number.isSafeInteger(offset) || offset < 0) {
    fail(response, 400, 'expected ?session=<id>&file=<file>[&offset=<byte>]');
    return;
  }
  let opened: OpenedOutput | undefined;
  try {
    opened = await openOutput(options.source, session, file, options.reader ?? 'admin');
    if (!opened) {
      fail(response, 404, `no offloaded outputs are known for session ${session}`);
      return;
    }
    const slice = await readOutputSlice(opened.file, opened.access, offset);
    // Released before the answer: a page that waits for it finds the reader's slot free again.
    const done = opened;
    opened = undefined;
    await done.release();
    // A copy's slice names the output as the session knows it.
    json(response, 200, { ...slice, file });
  } catch (error) {
    if (error instanceof ReadSlotsFullError) {
      // The reader's reads in flight are all taken (team/read-back-slots.ts): later, not never.
      response.setHeader('retry-after', '1');
      fail(response, 429, error.message);
      return;
    }
    if (error instanceof ToolOutputReadError) {
      fail(response, READ_ERROR_STATUS[error.code], error.message);
      return;
    }
    fail(response, 500, `cannot read the output: ${describeError(error)}`);
  } finally {
    await opened?.release();
  }
}

/** Where the page's output is read: the source's copy, else the file under its session's access. */
async function openOutput(
  source: DashboardSource,
  session: string,
  file: string,
  reader: string,
): Promise<OpenedOutput | undefined> {
  if (source.openOutput) return source.openOutput(session, file, reader);
  const access = await source.outputAccess(session);
  return access ? { file, access, release: async () => undefined } : undefined;
}

export async function dashboardStatus(options: DashboardApiOptions): Promise<DashboardStatus> {
  const now = options.now();
  return {
    source: options.source.kind,
    version: options.version,
    startedAt: options.startedAt,
    now,
    uptimeMs: Math.max(0, now - options.startedAt),
    prices: options.prices,
    ...(await options.source.status()),
  };
}

/** What the page's first view is drawn from (one read of the records for both figures). */
export async function firstView(options: DashboardApiOptions): Promise<FirstView> {
  const [status, records] = await Promise.all([
    dashboardStatus(options),
    options.source.records({}),
  ]);
  return {
    status,
    sessions: summarizeSessions(records, pricing(options)),
    timeline: summarizeTimeline(records),
  };
}

/**
 * One session's requests: its conversation's own, and the side requests shown in it
 * (session-of.ts). A session of side requests alone charts those. Undefined when it has none.
 */
async function sessionDetail(
  source: DashboardSource,
  id: string,
  query: UsageQuery,
): Promise<SessionDetail | undefined> {
  const records = await source.records(query);
  const ids = sessionOf(records);
  const mine = records.filter((_, index) => ids[index] === id);
  if (mine.length === 0) return undefined;
  const failed = failedRequests(
    mine,
    mine.map(() => id),
  );
  const own = mine.filter((record) => !record.side);
  const side = mine.filter((record) => record.side);
  const extras = await source.sessionExtras?.(id);
  return {
    id,
    requests: own.length > 0 ? own : side,
    ...(own.length > 0 && side.length > 0 ? { sideRequests: side } : {}),
    ...(failed.length > 0 ? { failedRequests: failed } : {}),
    ...(extras ? { extras } : {}),
  };
}

function pricing(options: DashboardApiOptions): (model: string) => PriceRow | undefined {
  return (model) => priceOf(model, options.prices);
}

/** Handles a request under `/api/`. */
export async function handleDashboardApi(
  options: DashboardApiOptions,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    fail(response, 405, 'the API is read-only (GET)');
    return;
  }
  const { source } = options;
  const url = new URL(request.url ?? '/', 'http://dashboard');
  const pathname = url.pathname;
  const since = Number(url.searchParams.get('since'));
  const query = Number.isFinite(since) && since > 0 ? { sinceMs: since } : {};

  if (pathname === '/api/sessions') {
    json(response, 200, summarizeSessions(await source.records(query), pricing(options)));
    return;
  }
  if (pathname === '/api/events') {
    options.feed.attach(response, await options.viewer?.());
    return;
  }
  if (pathname === '/api/outputs') {
    await readOutput(options, url, response);
    return;
  }
  if (pathname === '/api/timeline') {
    json(response, 200, summarizeTimeline(await source.records(query)));
    return;
  }
  if (pathname === '/api/status') {
    json(response, 200, await dashboardStatus(options));
    return;
  }
  const session = /^\/api\/sessions\/([^/]+)(\/outputs)?$/.exec(pathname);
  if (session && SESSION_ID.test(session[1] as string)) {
    const id = session[1] as string;
    if (session[2]) {
      const outputs: SessionOutputs = {
        id,
        outputs: await withPreviews(source, id, await source.outputs(id)),
      };
      json(response, 200, outputs);
      return;
    }
    const detail = await sessionDetail(source, id, query);
    if (!detail) {
      fail(response, 404, 'no such session');
      return;
    }
    json(response, 200, detail);
    return;
  }
  fail(response, 404, `no API at ${pathname}`);
}
