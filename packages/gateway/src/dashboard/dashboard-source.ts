/**
 * What the dashboard shows, behind one interface with two implementations: the gateway's own
 * state (gateway-source.ts: usage records, conversations' decisions) and gemini-cli's telemetry
 * outfile of an in-process installation (`toolmask dashboard`, in @toolmask/cli). The API layer
 * (dashboard-api.ts) folds, confines and serves; a source only finds.
 */
import type { ToolOutputAccess } from '@toolmask/core/storage';
import type { UsageQuery } from '../state/stores.js';
import type { ClientKind, UsageRecord } from '../usage/usage-record.js';
import type { DashboardStatus, OffloadedOutput, SettingValue, SourceKind } from './api-types.js';

export interface SourceStatus {
  settings: Record<string, Record<string, SettingValue>>;
  details: Record<string, SettingValue>;
  settingsFiles?: Partial<Record<ClientKind, string>>;
  /** DashboardStatus.readToolNames. */
  readToolNames?: DashboardStatus['readToolNames'];
}

export interface OpenedOutput {
  file: string;
  access: ToolOutputAccess;
  release(): Promise<void>;
}

export interface DashboardSource {
  readonly kind: SourceKind;
  /** Per-request records, oldest first. */
  records(query?: UsageQuery): Promise<UsageRecord[]>;
  /** The session's offloaded outputs (a preview may be left empty: the API reads the file's head). */
  outputs(sessionId: string): Promise<OffloadedOutput[]>;
  /**
   * Where the session's outputs may be read, with `read_tool_output`'s confinement; undefined
   * when the session has none this source can find.
   */
  outputAccess(sessionId: string): Promise<ToolOutputAccess | undefined>;
  /**
   * Where one output of the session can be read, when it is not a file under `outputAccess` (a
   * team gateway's shared store: a copy on this machine's disk, removed by `release`); undefined
   * when the session has no such output. Absent: `file` is read under `outputAccess`. `reader`
   * names who reads (a team's owner, or `admin`): a team gateway holds one of their read slots
   * until `release`, and throws `ReadSlotsFullError` when all are taken.
   */
  openOutput?(sessionId: string, file: string, reader: string): Promise<OpenedOutput | undefined>;
  status(): Promise<SourceStatus>;
  /** Figures only this source has for a session, by name. */
  sessionExtras?(sessionId: string): Promise<Record<string, number> | undefined>;
  /**
   * Calls `listener` whenever new figures may be there (with their owner's name, when they have
   * one); returns the unsubscribe.
   */
  onChange(listener: (owner?: string) => void): () => void;
}

/** A session id as the API accepts it in a path: gateway digests, UUIDs, plain names. */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
