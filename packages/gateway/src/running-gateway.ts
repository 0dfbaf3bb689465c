/**
 * `<stateDir>/gateway.json`: where a standalone gateway (`toolmask gateway`) of a state folder
 * listens, so launchers can send their clients there. The file outlives a gateway that was killed
 * (SIGKILL, an OOM kill, a reboot), and by then another service may own its port; a launcher that
 * trusted any answer there would hand the client, and its API keys, to that service. So a gateway
 * counts as running only when the pid in the file is alive and `GET /healthz` answers with the
 * random instance id the file holds (the file is 0600 in a 0700 folder: only its owner knows the
 * id).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isProcessAlive } from '@toolmask/core/utils';
import type { UpstreamUrls } from './upstream/upstreams.js';

/** Where a running gateway says where it listens. */
export const RUNNING_FILE = 'gateway.json';

export interface RunningFile {
  url: string;
  pid: number;
  version: string;
  startedAt: number;
  /** Random per gateway start; `/healthz` answers with it. */
  instanceId: string;
  /** The upstreams it was started with (launchers reuse a gateway only if they match). */
  upstreams?: Partial<UpstreamUrls>;
  /** The masking settings file it reads for every request (`--settings`), when it was given one. */
  settingsFile?: string;
}

/** What `GET /healthz` answers. */
export interface HealthAnswer {
  status: 'ok';
  version: string;
  instanceId: string;
}

const HEALTH_TIMEOUT_MS = 1_000;

function isRunningFile(value: unknown): value is RunningFile {
  const file = value as Partial<RunningFile> | null;
  return (
    typeof file === 'object' &&
    file !== null &&
    typeof file.url === 'string' &&
    typeof file.pid === 'number' &&
    typeof file.instanceId === 'string' &&
    file.instanceId !== ''
  );
}

/** The gateway another process runs for this state folder, if it is really that gateway. */
export async function findRunningGateway(stateDir: string): Promise<RunningFile | undefined> {
  return verified(path.join(stateDir, RUNNING_FILE));
}

/** Where launchers' own gateways say where they listen, one file each (listen-gateway.ts). */
export const LAUNCHES_FOLDER = 'launches';

/** A launcher's own gateway: where it listens, and the client it carries. */
export type LaunchGateway = RunningFile & { client?: string };

/**
 * The launchers' own gateways running for this state folder (`toolmask claude`, ...), each
 * trusted as `findRunningGateway` trusts `gateway.json`; oldest first.
 */
export async function findLaunchGateways(stateDir: string): Promise<LaunchGateway[]> {
  const folder = path.join(stateDir, LAUNCHES_FOLDER);
  let names: string[];
  try {
    names = (await fs.readdir(folder)).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const found = await Promise.all(names.map((name) => verified(path.join(folder, name))));
  return found
    .filter((running): running is LaunchGateway => running !== undefined)
    .sort((a, b) => a.startedAt - b.startedAt);
}

/** The running file's gateway, if its pid lives and `/healthz` answers with its instance id. */
async function verified(file: string): Promise<LaunchGateway | undefined> {
  let running: unknown;
  try {
    running = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (!isRunningFile(running) || !isProcessAlive(running.pid)) return undefined;
  try {
    const answer = await fetch(`${running.url}/healthz`, {
      signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
      redirect: 'error',
    });
    if (!answer.ok) return undefined;
    const health = (await answer.json()) as Partial<HealthAnswer> | null;
    return health?.status === 'ok' && health.instanceId === running.instanceId
      ? running
      : undefined;
  } catch {
    return undefined;
  }
}
