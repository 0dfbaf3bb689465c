/**
 * The dashboard's figures for a person using the in-process installation: gemini-cli's
 * telemetry outfile, followed as it grows (checked every second and before each answer), and the
 * offloaded outputs on disk. A session's outputs are in `<project temp dir>/tool-outputs/
 * session-<session id>/`; the project is the one given (`--project`), else every project temp dir
 * under gemini-cli's folder (`~/.gemini/tmp/*`) is searched for that session's folder. Reading
 * one is confined to that folder like `read_tool_output` (the gateway's dashboard API does it).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { geminiDir, sessionDirectory, type Environment } from '@toolmask/core/storage';
import {
  createMaskingSettingsSource,
  type DashboardSource,
  type OffloadedOutput,
  type SettingValue,
} from '@toolmask/gateway';
import { listOffloadedOutputs } from '../outputs/list-outputs.js';
import { followOutfile } from './outfile-follower.js';
import { TelemetryFold } from './telemetry-fold.js';

export interface OutfileSourceOptions {
  outfile: string;
  /** A project temp dir (the folder holding `tool-outputs/`); default: search them all. */
  projectTempDir?: string;
  /** The user settings file the in-process installation reads (shown as the settings in force). */
  userSettingsFile: string;
  env: Environment;
  /** Milliseconds between checks of the outfile. @default 1000 */
  pollMs?: number;
}

export interface OutfileSource extends DashboardSource {
  /** Reads what is new now (tests; the timer does it every `pollMs`). */
  refresh(): Promise<void>;
  close(): void;
}

async function isPlainFolder(folder: string): Promise<boolean> {
  try {
    const stats = await fs.lstat(folder);
    return stats.isDirectory() && !stats.isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Finds the project temp dir holding a session's outputs: the one given, else the first under
 * gemini-cli's `tmp/` with that session's folder (remembered once found).
 */
function sessionProjects(
  options: OutfileSourceOptions,
): (sessionId: string) => Promise<string | undefined> {
  /** Session id → the project temp dir holding its outputs. */
  const projects = new Map<string, string>();
  return async (sessionId) => {
    const known = projects.get(sessionId);
    if (known) return known;
    let candidates: string[];
    if (options.projectTempDir) {
      candidates = [options.projectTempDir];
    } else {
      const tmp = path.join(geminiDir(options.env), 'tmp');
      candidates = (await fs.readdir(tmp).catch(() => [] as string[])).map((name) =>
        path.join(tmp, name),
      );
    }
    for (const candidate of candidates) {
      if (await isPlainFolder(sessionDirectory(candidate, sessionId))) {
        projects.set(sessionId, candidate);
        return candidate;
      }
    }
    return undefined;
  };
}

export function createOutfileSource(options: OutfileSourceOptions): OutfileSource {
  const fold = new TelemetryFold();
  const listeners = new Set<() => void>();
  const follower = followOutfile(
    options.outfile,
    (value) => fold.add(value),
    () => fold.reset(),
  );
  const settings = createMaskingSettingsSource(
    { settingsFile: options.userSettingsFile },
    () => undefined,
    () => undefined,
  );
  const projectOf = sessionProjects(options);
  async function refresh(): Promise<void> {
    if ((await follower.poll()) > 0) for (const listener of listeners) listener();
  }
  const timer = setInterval(() => void refresh().catch(() => undefined), options.pollMs ?? 1_000);
  timer.unref();

  return {
    kind: 'telemetry-outfile',
    async records(query) {
      await refresh();
      return fold.records(query);
    },
    async outputs(sessionId) {
      const project = await projectOf(sessionId);
      if (!project) return [];
      const found = await listOffloadedOutputs(project, { session: sessionId });
      return found.map((output): OffloadedOutput => ({
        tool: output.tool,
        callId: output.callId,
        file: output.file,
        bytes: output.bytes,
        at: output.modifiedMs,
        preview: '',
      }));
    },
    async outputAccess(sessionId) {
      const project = await projectOf(sessionId);
      return project
        ? { projectTempDir: project, sessionId, allowOtherSessions: false }
        : undefined;
    },
    async sessionExtras(sessionId) {
      return fold.extras(sessionId);
    },
    async status() {
      const masking = await settings.config();
      return {
        settings: { masking: { ...masking } as Record<string, SettingValue> },
        details: {
          outfile: options.outfile,
          bytesRead: follower.bytesRead,
          valuesSkipped: follower.skipped,
          userSettingsFile: options.userSettingsFile,
          outputsSearched: options.projectTempDir ?? path.join(geminiDir(options.env), 'tmp', '*'),
        },
      };
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    refresh,
    close() {
      clearInterval(timer);
      listeners.clear();
    },
  };
}
