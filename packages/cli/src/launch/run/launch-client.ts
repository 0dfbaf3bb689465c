/**
 * Runs a person's own agent CLI (any client of launch/clients/) through the gateway for one
 * session: reuse the standalone gateway running for this state folder (`toolmask gateway`,
 * announced in `gateway.json`) when it sends the client's requests where they would go
 * (gateway-reuse.ts), or start a private one in this process on a free loopback port (its log goes
 * to `<stateDir>/gateway.log`, never to the terminal the agent draws on; the port is bound first
 * and the client started at once, while the gateway's code loads: its first connections wait for
 * it, bench section 6b); set the client up (its
 * adapter's `prepare`); run it with the terminal inherited, so the interactive UI works; stop the
 * gateway it started when the client exits, and exit with the client's code.
 *
 * Why private: a gateway a launcher starts runs inside the launcher's process, so it ends when
 * that client exits. Shared with a second launcher, it would take the second client's model API
 * and read-back down with it; keeping it alive instead would make the first terminal wait for the
 * other session. So a launcher's gateway is never announced, and only a standalone gateway, which
 * outlives every launcher, is ever reused. Several gateways on one state folder are safe: each
 * launch has its own session id, hence its own conversations (decisions, meta, offloaded outputs),
 * and the shared files are appended whole lines at a time (usage days, the log).
 *
 * Signals (signal-guard.ts): Ctrl-C is the client's (gemini cancels a request, then exits), and
 * the launcher holds on to it until it has cleaned up and printed the run's summary. When the
 * client exits, however it exits, the launcher prints the run's figures (run-figures.ts).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { RunningFile, RunningGateway, UpstreamUrls } from '@toolmask/gateway';
import { bindEarlyListener, findRunningGateway, loadAccessSecret } from '@toolmask/gateway/launch';
import { describeError } from '@toolmask/core/errors';
import { ensurePrivateDirectory } from '@toolmask/core/files';
import type { Environment } from '../environment.js';
import type { GatewayAccess } from '../gateway-access.js';
import { servesUpstreams, type UpstreamReuse } from './gateway-reuse.js';
import type { ClientSetup } from './launch-plan.js';
import type { RunGateway } from './run-figures.js';
import { SignalGuard } from './signal-guard.js';
import { launchTitle } from './terminal-title.js';

export { launchTitle, titleSequence } from './terminal-title.js';

export interface LaunchOptions {
  /** The client's name, for messages: `gemini`, `qwen`, ... */
  client: string;
  /** How the client's requests reach a gateway's upstreams: whether a running one may carry it. */
  reuse: UpstreamReuse;
  /** The executable to run (a path, or a name found on PATH). */
  bin: string;
  args: readonly string[];
  env: Environment;
  cwd: string;
  stateDir: string;
  /** The person's own upstreams: a running gateway is reused only if it has these. */
  upstreams: Partial<UpstreamUrls>;
  /** Sets the client up against `gateway`. */
  setup(gateway: GatewayAccess, sessionId: string): Promise<ClientSetup>;
  /** Messages for the person (stderr). */
  say(line: string): void;
  /** The masking settings file a gateway this run starts reads. */
  gatewaySettingsFile?: string;
  /** Whether `--masking-settings` named that file (a reused gateway does not read it then). */
  gatewaySettingsGiven?: boolean;
  /** Colours in what is said (stderr is a terminal, NO_COLOR unset). @default false */
  color?: boolean;
  /** The state folder as the person named it, for the hint after a private gateway's run. */
  stateDirOption?: string;
  /** The client's own saved-output folders, which a private gateway reads back and searches. */
  hostOutputRoots?: readonly string[];
  /** The client's resume command through toolmask, for its session id (client-adapter.ts). */
  resumeCommand?: (clientSession: string) => string;
  /**
   * Sets the terminal's title (stdout a terminal): the banner's gist outlives the client's
   * full-screen UI there, which wipes the banner itself (issue 35).
   */
  setTitle?: (title: string) => void;
  /** Puts the terminal's title from before the run back, once the run's summary is said. */
  restoreTitle?: () => void;
  /**
   * The client draws no full-screen UI (its arguments say so, or stderr is no terminal): a fault
   * is said on stderr as it happens, else in the terminal title (unreachable-notice.ts).
   */
  headless?: boolean;
}

function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const number = signal ? os.constants.signals[signal] : undefined;
  return number ? 128 + number : 1;
}

/**
 * A gateway for the run: a running one reused, or a private one whose port is bound and whose
 * code `start` loads (called once the client has started; resolves undefined if it failed).
 */
type LaunchGateway = RunGateway & { start?: () => Promise<RunningGateway | undefined> };

/**
 * Which masking settings a reused gateway applies to this run: its `--settings` file, else the
 * same precedence rule per client as this launch (the same file, unless `--masking-settings`
 * named another, which it does not read).
 */
async function reusedSettings(existing: RunningFile, options: LaunchOptions): Promise<string> {
  const ours = options.gatewaySettingsFile;
  if (existing.settingsFile) {
    const not = ours && path.resolve(ours) !== existing.settingsFile ? `, not ${ours}` : '';
    return `its own masking settings apply (its --settings ${existing.settingsFile})${not}`;
  }
  if (!ours) return 'its own masking settings apply';
  if (options.gatewaySettingsGiven) {
    return `its own masking settings apply (each client's by the precedence rule), not ${ours}`;
  }
  // The launch's file is the client's own when no file holds settings: none may exist.
  const { settingsCandidate } = await import('./masking-settings.js');
  return (await settingsCandidate(ours)).present
    ? `its masking settings for this client are the same file's, ${ours}`
    : 'its masking settings for this client are the defaults, as for this launch (no settings file holds any)';
}

async function ensureGateway(options: LaunchOptions): Promise<LaunchGateway> {
  const existing = await findRunningGateway(options.stateDir);
  if (existing && servesUpstreams(options.reuse, existing.upstreams ?? {}, options.upstreams)) {
    options.say(
      `toolmask: using the gateway already running at ${existing.url} (pid ${existing.pid}); ${await reusedSettings(existing, options)}`,
    );
    // The gateway of this state folder keeps its secret there (0600): the person can read it.
    return { url: existing.url, accessSecret: await loadAccessSecret(options.stateDir) };
  }
  await ensurePrivateDirectory(options.stateDir);
  const accessSecret = await loadAccessSecret(options.stateDir);
  // The port is bound now and the client started with it; the gateway's code (a second of CPU
  // and more) loads meanwhile and takes the connections that came first (early-listener.ts).
  const listener = await bindEarlyListener();
  let starting: Promise<RunningGateway | undefined> | undefined;
  const start = () =>
    (starting ??= startPrivateGateway(options, listener, accessSecret).catch(
      async (error: unknown) => {
        options.say(`toolmask: the run's gateway did not start: ${describeError(error)}`);
        await listener.close();
        return undefined;
      },
    ));
  return { url: listener.url, accessSecret, start };
}

async function startPrivateGateway(
  options: LaunchOptions,
  listener: Awaited<ReturnType<typeof bindEarlyListener>>,
  accessSecret: string,
): Promise<RunningGateway> {
  const { listenGateway } = await import('@toolmask/gateway');
  const logFile = path.join(options.stateDir, 'gateway.log');
  return listenGateway({
    listener,
    accessSecret,
    announce: false,
    // Found by `toolmask status` while it runs (its dashboard), though never reused.
    launchOf: options.client,
    stateDir: options.stateDir,
    upstreams: options.upstreams,
    ...(options.gatewaySettingsFile ? { settingsFile: options.gatewaySettingsFile } : {}),
    ...(options.hostOutputRoots ? { hostOutputRoots: options.hostOutputRoots } : {}),
    log: (line) => {
      try {
        appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`, { mode: 0o600 });
      } catch {
        // A log that cannot be written must not stop the session.
      }
    },
  });
}

/** Runs the client through the gateway; resolves to the exit code to exit with. */
export async function launchClient(options: LaunchOptions): Promise<number> {
  const gateway = await ensureGateway(options);
  const sessionId = randomUUID();
  // A standalone gateway's totals before the run: what else it carries meanwhile is not this run's.
  // The figures' code (run-figures.ts, usage-summary.ts) loads after the client has started,
  // except here, where a reused gateway's totals are read first (issue 30: start-up CPU).
  const before = gateway.start
    ? undefined
    : await (await import('./usage-summary.js')).fetchUsageSummary(gateway);
  let setup: ClientSetup | undefined;
  const signals = new SignalGuard();
  let ran = false;
  try {
    setup = await options.setup(gateway, sessionId);
    options.say(setup.summary);
    options.setTitle?.(launchTitle(options.client, gateway.url));
    for (const note of setup.notes ?? []) options.say(note);
    signals.hold();
    ran = true;
    // The client is spawned before this returns; only then does the gateway's code load.
    const exited = runChild(options, setup.env, setup.args ?? options.args, signals);
    void gateway.start?.();
    const watching = watchFaults(options, gateway, sessionId);
    try {
      return await exited;
    } finally {
      (await watching)();
    }
  } finally {
    signals.childGone();
    try {
      const running = await gateway.start?.();
      if (running) gateway.running = running;
      const figures = ran ? await import('./run-figures.js') : undefined;
      const after = await figures?.runFigures(gateway, sessionId);
      for (const warning of (await setup?.cleanup()) ?? []) options.say(`toolmask: ${warning}`);
      await gateway.running?.close();
      figures?.sayRunSummary(options, gateway, before?.ok ? before.summary : undefined, after);
      // The title named a gateway that stopped with the run (or the run's end).
      options.restoreTitle?.();
    } finally {
      signals.release();
    }
  }
}

/** Says an unreachable upstream while the client runs; resolves to the function that stops. */
async function watchFaults(
  options: LaunchOptions,
  gateway: LaunchGateway,
  sessionId: string,
): Promise<() => void> {
  // Loaded once the client has started, as the figures' code (start-up CPU, issue 30).
  const notices = await import('./unreachable-notice.js');
  return notices.watchUnreachable({
    gateway,
    sessionId,
    privateGateway: gateway.start !== undefined,
    notice: (upstream) => {
      if (options.headless) options.say(notices.unreachableLine(options.client, upstream));
      else options.setTitle?.(notices.unreachableTitle(options.client, upstream, gateway.url));
    },
  });
}

function runChild(
  options: LaunchOptions,
  env: Environment,
  args: readonly string[],
  signals: SignalGuard,
): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(options.bin, [...args], {
      stdio: 'inherit',
      env: env as NodeJS.ProcessEnv,
      cwd: options.cwd,
    });
    signals.passTo(child);
    const done = (code: number) => {
      signals.childGone();
      resolve(code);
    };
    child.on('error', (error: NodeJS.ErrnoException) => {
      options.say(
        error.code === 'ENOENT'
          ? `toolmask: ${options.bin}: command not found; install ${options.client} first (see docs/gateway.md)`
          : `toolmask: cannot run ${options.bin}: ${error.message}`,
      );
      done(error.code === 'ENOENT' ? 127 : 126);
    });
    child.on('exit', (code, signal) => done(exitCodeOf(code, signal)));
  });
}
