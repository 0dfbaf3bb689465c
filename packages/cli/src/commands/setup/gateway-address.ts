/**
 * Which gateway address `toolmask setup` writes, and whether a gateway answers there:
 *
 * 1. `--gateway URL`, when given;
 * 2. else the gateway running for the state folder (its `gateway.json`, trusted only while its pid
 *    lives and `/healthz` answers with its instance id: the gateway's running-gateway.ts), which
 *    may listen on any port (`toolmask gateway --port 0`);
 * 3. else the default, `http://127.0.0.1:8787`, where `toolmask gateway` listens unless told.
 *
 * Then one `GET /healthz` (1 s at most) says whether a toolmask gateway answers at that address
 * now. Nothing there is not an error (the person may start the gateway after setup, as a service),
 * but it is said, with the command that would start one there.
 */
import { findRunningGateway, type RunningFile } from '@toolmask/gateway';
import { DEFAULT_PORT } from '@toolmask/gateway/defaults';

const PROBE_TIMEOUT_MS = 1_000;

export interface GatewayAddress {
  url: string;
  /** Where the address came from. */
  chosen: 'option' | 'running' | 'default';
  /** The gateway running for the state folder, when there is one. */
  running?: RunningFile;
}

export async function chooseGatewayAddress(
  option: string | undefined,
  stateDir: string,
): Promise<GatewayAddress> {
  const running = await findRunningGateway(stateDir);
  const withRunning = running ? { running } : {};
  if (option !== undefined)
    return { url: option.replace(/\/$/, ''), chosen: 'option', ...withRunning };
  if (running) return { url: running.url, chosen: 'running', running };
  return { url: `http://127.0.0.1:${DEFAULT_PORT}`, chosen: 'default' };
}

/** What answers `GET <url>/healthz`: a toolmask gateway, something else, or nothing. */
export type ProbeResult =
  | { kind: 'toolmask'; instanceId: string }
  | { kind: 'other'; detail: string }
  | { kind: 'nothing'; detail: string };

export async function probeGateway(url: string): Promise<ProbeResult> {
  let answer: Response;
  try {
    answer = await fetch(`${url}/healthz`, {
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      redirect: 'error',
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: unknown } }).cause?.code;
    return { kind: 'nothing', detail: typeof cause === 'string' ? cause : 'no answer' };
  }
  const body = (await answer.json().catch(() => undefined)) as
    { status?: unknown; instanceId?: unknown } | undefined;
  return answer.ok && body?.status === 'ok' && typeof body.instanceId === 'string'
    ? { kind: 'toolmask', instanceId: body.instanceId }
    : { kind: 'other', detail: `/healthz answered HTTP ${answer.status}` };
}

function portOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
  } catch {
    return String(DEFAULT_PORT);
  }
}

/** Lines for the person: which address was written, why, and what answers there. */
export function describeGatewayAddress(
  address: GatewayAddress,
  probe: ProbeResult,
  stateDir: string,
  client: string,
): string[] {
  const { url, running } = address;
  const why =
    address.chosen === 'option'
      ? '--gateway'
      : address.chosen === 'running'
        ? `the gateway running for ${stateDir}, pid ${running?.pid}, from its gateway.json`
        : `the default: no gateway is running for ${stateDir}`;
  const port = portOf(url);
  const startCommand = `toolmask gateway${port === String(DEFAULT_PORT) ? '' : ` --port ${port}`}`;
  const lines = [`Gateway address written: ${url} (${why}).`];
  if (probe.kind === 'toolmask') {
    const theRunningOne = running !== undefined && running.instanceId === probe.instanceId;
    lines.push(`A toolmask gateway answers there now${theRunningOne ? '' : ` (${url}/healthz)`}.`);
    if (address.chosen === 'running' && port !== String(DEFAULT_PORT)) {
      lines.push(
        `It listens on port ${port}: start it again with --port ${port} (\`${startCommand}\`), or run \`toolmask setup ${client} --undo\` and setup again, since that port is what ${client} now uses.`,
      );
    }
    if (!theRunningOne) {
      lines.push(
        `It is not the gateway of ${stateDir}, whose access secret the read-back tool was given: if it keeps its state elsewhere, run setup again with that --state-dir.`,
      );
    }
  } else if (probe.kind === 'other') {
    lines.push(
      `Something answers there, but not a toolmask gateway (${probe.detail}). Start \`toolmask gateway --port <free port>\` and run \`toolmask setup ${client} --undo\`, then setup again with --gateway.`,
    );
  } else {
    lines.push(
      `No gateway answers there now (${probe.detail}): start one before you run the client, \`${startCommand}\` (docs/gateway.md shows a systemd user service).`,
    );
  }
  if (address.chosen === 'option' && running && running.url !== url) {
    lines.push(`Note: the gateway running for ${stateDir} listens at ${running.url}, not there.`);
  }
  return lines;
}
