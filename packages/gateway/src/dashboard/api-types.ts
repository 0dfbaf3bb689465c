/**
 * The JSON the dashboard's API answers, the one contract between the server (dashboard-api.ts)
 * and the page (web/src), which imports these types through the project reference.
 */
import type { FailedRequest } from '../usage/failed-requests.js';
import type { PriceTable } from '../usage/model-prices.js';
import type { SessionsReport, SessionSummary } from '../usage/sessions.js';
import type { Timeline, TimelinePoint } from '../usage/timeline.js';
import type { ClientKind, UsageRecord } from '../usage/usage-record.js';

export type {
  ClientKind,
  FailedRequest,
  SessionsReport,
  SessionSummary,
  Timeline,
  TimelinePoint,
  UsageRecord,
};
export type { PriceRow, PriceTable } from '../usage/model-prices.js';

/** Where the figures come from. */
export type SourceKind = 'gateway' | 'telemetry-outfile';

/** `GET /api/sessions/<id>`: one session's requests, oldest first. */
export interface SessionDetail {
  id: string;
  /** The conversation's own requests (what the chart draws). */
  requests: UsageRecord[];
  /** Side requests shown in this session (router calls, next-speaker checks), when there are any. */
  sideRequests?: UsageRecord[];
  /** Its requests without a whole answer (unreachable, 4xx/5xx, left by the client), newest first. */
  failedRequests?: FailedRequest[];
  /** Figures only some sources have (the outfile's metric exports), by name. */
  extras?: Record<string, number>;
}

/** One offloaded output of a session, as `GET /api/sessions/<id>/outputs` lists it. */
export interface OffloadedOutput {
  tool: string;
  callId: string;
  /** What to pass back as `file` to `GET /api/outputs`. */
  file: string;
  bytes: number;
  /** Estimated tokens of the whole output and of its snippet, when known. */
  tokensBefore?: number;
  tokensAfter?: number;
  /** Epoch ms when it was masked (or written). */
  at: number;
  /** The first lines of the output, or the preview its snippet showed the model. */
  preview: string;
}

/** `GET /api/sessions/<id>/outputs`. */
export interface SessionOutputs {
  id: string;
  outputs: OffloadedOutput[];
}

/** `GET /api/outputs?session=<id>&file=<file>[&offset=<byte>]`: a slice of an output's text. */
export interface OutputSlice {
  file: string;
  /** Byte range of the file this slice holds: [offset, nextOffset). */
  offset: number;
  nextOffset: number;
  /** The whole file's size in bytes. */
  bytes: number;
  text: string;
  /** More follows (ask again with `offset=nextOffset`). */
  truncated: boolean;
}

/** Values shown on the settings panel. */
export type SettingValue = string | number | boolean | null | readonly unknown[];

/** `GET /api/status`. */
export interface DashboardStatus {
  source: SourceKind;
  version: string;
  /** Epoch ms the server started and answered. */
  startedAt: number;
  now: number;
  uptimeMs: number;
  /** Settings in force, by group (e.g. `masking`, `gateway`). */
  settings: Record<string, Record<string, SettingValue>>;
  /** Sources' own facts (state folder, outfile, memory), for the same panel. */
  details: Record<string, SettingValue>;
  /** The masking settings file that applies to each client's sessions now (a gateway's only). */
  settingsFiles?: Partial<Record<ClientKind, string>>;
  /** The prices of the money figures, with their date and sources (usage/model-prices.ts). */
  prices: PriceTable;
  /**
   * The read-back tool's name as each client's model sees it (read-back-names.ts), where the
   * source knows it: the session view names the one of its client.
   */
  readToolNames?: Partial<Record<ClientKind, string>>;
}

/**
 * What the server writes into the page it serves (`<meta name="toolmask-first-view">`), so the
 * first view is drawn without waiting for the API: the answers of `/api/status`,
 * `/api/sessions` and `/api/timeline` at the time the page was asked for.
 */
export interface FirstView {
  status: DashboardStatus;
  sessions: SessionsReport;
  timeline: Timeline;
}

/** `GET /api/events` is a server-sent event stream: an event named `change` when new figures may be there. */
export type ChangeEventName = 'change';
