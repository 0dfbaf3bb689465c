/**
 * Runs a person's own agent CLI (`gemini`, `qwen`) through the gateway for one session: reuse the
 * standalone gateway running for this state folder (`toolmask gateway`, announced in
 * `gateway.json`), or start a private one in this process on a free loopback port (its log goes
 * to `<stateDir>/gateway.log`, never to the terminal the agent draws on); set the client up (by
 * environment, see gemini-launch.ts and qwen-launch.ts); run it with the terminal inherited, so
 * the interactive UI works; stop the gateway it started when the client exits, and exit with the
 * client's code.
 *
 * Why private: a gateway a launcher starts runs inside the launcher's process, so it ends when
 * that client exits. Shared with a second launcher, it would take the second client's model API
 * and read-back down with it; keeping it alive instead would make the first terminal wait for the
 * other session. So a launcher's gateway is never announced, and only a standalone gateway, which
 * outlives every launcher, is ever reused. Several gateways on one state folder are safe: each
 * launch has its own session id, hence its own conversations (decisions, meta, offloaded outputs),
 * and the shared files are appended whole lines at a time (usage days, the log).
 *
 * Signals: Ctrl-C reaches the client directly (it shares the terminal's process group), which
 * decides what it means (gemini cancels a request, then exits); the launcher ignores it meanwhile,
 * and until it has cleaned up and printed the run's summary (a second Ctrl-C pressed to quit the
 * client must not cut that short). SIGTERM and SIGHUP sent to the launcher alone are passed on to
 * the client while it runs.
 *
 * When the client exits, however it exits, the launcher prints the run's figures (requests,
 * outputs masked, tokens kept out, cache hits; usage-summary.ts), which also brings the
 * dashboard's address back into view after a full-screen UI. A private gateway carried this run
 * alone: its totals are the run's. A reused standalone gateway may carry other clients too: the
 * run's figures are those of its session header, and what else the gateway carried meanwhile is
 * said, not counted.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  findRunningGateway,
  listenGateway,
  loadAccessSecret,
  type RunningGateway,
  type UpstreamUrls,
} from '@toolmask/gateway';
import { ensurePrivateDirectory } from '@toolmask/core/storage';
import { createPalette } from '../render/color.js';
import { dashboardLink, type GatewayAccess } from './gateway-access.js';
import { servesUpstreams, type LaunchClientName } from './gateway-reuse.js';
import type { Environment } from './gemini-launch.js';
import { fetchUsageSummary, runSummaryLines, type UsageSummary } from './usage-summary.js';

export interface ClientSetup {
  env: Environment;
  /** The client's arguments, when the setup changed them; default the person's own. */
  args?: readonly string[];
  /** One line for the person before the client starts. */
  summary: string;
  /** More lines for the person before the client starts (notes on the client's settings). */
  notes?: readonly string[];
  /** Undoes what the setup made for this run (overlays); returns warnings. */
  cleanup(): Promise<string[]>;
}

export interface LaunchOptions {
  /** The client's command name, for messages: `gemini`, `qwen`. */
  client: LaunchClientName;
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
  /** Colours in what is said (stderr is a terminal, NO_COLOR unset). @default false */
  color?: boolean;
  /** The state folder as the person named it, for the hint after a private gateway's run. */
  stateDirOption?: string;
}

function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const number = signal ? os.constants.signals[signal] : undefined;
  return number ? 128 + number : 1;
}

async function ensureGateway(
  options: LaunchOptions,
): Promise<GatewayAccess & { running?: RunningGateway }> {
  const existing = await findRunningGateway(options.stateDir);
  if (existing && servesUpstreams(options.client, existing.upstreams ?? {}, options.upstreams)) {
    // Its masking settings are the ones it was started with, not this launch's file: say so.
    options.say(
      `toolmask: using the gateway already running at ${existing.url} (pid ${existing.pid}); its own masking settings apply${options.gatewaySettingsFile ? `, not ${options.gatewaySettingsFile}` : ''}`,
    );
    // The gateway of this state folder keeps its secret there (0600): the person can read it.
    return { url: existing.url, accessSecret: await loadAccessSecret(options.stateDir) };
  }
  await ensurePrivateDirectory(options.stateDir);
  const logFile = path.join(options.stateDir, 'gateway.log');
  const running = await listenGateway({
    port: 0,
    announce: false,
    stateDir: options.stateDir,
    upstreams: options.upstreams,
    ...(options.gatewaySettingsFile ? { settingsFile: options.gatewaySettingsFile } : {}),
    log: (line) => {
      try {
        appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`, { mode: 0o600 });
      } catch {
        // A log that cannot be written must not stop the session.
      }
    },
  });
  return { url: running.url, accessSecret: running.gateway.accessSecret, running };
}

/** Runs the client through the gateway; resolves to the exit code to exit with. */
export async function launchClient(options: LaunchOptions): Promise<number> {
  const gateway = await ensureGateway(options);
  const sessionId = randomUUID();
  // A standalone gateway's totals before the run: what else it carries meanwhile is not this run's.
  const before = gateway.running ? undefined : await fetchUsageSummary(gateway);
  let setup: ClientSetup | undefined;
  const signals = new SignalGuard();
  let ran = false;
  try {
    setup = await options.setup(gateway, sessionId);
    options.say(setup.summary);
    for (const note of setup.notes ?? []) options.say(note);
    signals.hold();
    ran = true;
    return await runChild(options, setup.env, setup.args ?? options.args, signals);
  } finally {
    signals.childGone();
    try {
      const after = ran ? await runFigures(gateway, sessionId) : undefined;
      for (const warning of (await setup?.cleanup()) ?? []) options.say(`toolmask: ${warning}`);
      await gateway.running?.close();
      if (ran) sayRunSummary(options, gateway, before?.ok ? before.summary : undefined, after);
    } finally {
      signals.release();
    }
  }
}

/**
 * The run's figures, once the private gateway has recorded the client's last requests (a record
 * lands as the answer ends, which may be just after the client saw it); bounded, never throws.
 */
async function runFigures(
  gateway: GatewayAccess & { running?: RunningGateway },
  sessionId: string,
): Promise<Awaited<ReturnType<typeof fetchUsageSummary>>> {
  const running = gateway.running?.gateway;
  for (let waited = 0; running && running.inFlight > 0 && waited < 1_000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (running) return fetchUsageSummary(gateway, sessionId);
  // A reused gateway: its record of the run's last request lands just after the client has read
  // the answer, and its requests in flight are not ours to see. Asked again until two answers
  // agree on the run's requests (at most about a second).
  let figures = await fetchUsageSummary(gateway, sessionId);
  for (let attempt = 0; attempt < 6 && figures.ok; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 150));
    const again = await fetchUsageSummary(gateway, sessionId);
    if (!again.ok) return figures;
    const settled = again.summary.session?.requests === figures.summary.session?.requests;
    figures = again;
    if (settled) break;
  }
  return figures;
}

function sayRunSummary(
  options: LaunchOptions,
  gateway: GatewayAccess & { running?: RunningGateway },
  before: UsageSummary | undefined,
  after: Awaited<ReturnType<typeof fetchUsageSummary>> | undefined,
): void {
  const palette = createPalette(options.color === true);
  const say = (line: string) => options.say(`${palette.dim('toolmask:')} ${line}`);
  if (!after?.ok) {
    say(`no figures for this run: ${after?.reason ?? 'the gateway was not asked'}`);
  } else {
    const privateGateway = gateway.running !== undefined;
    for (const line of runSummaryLines(
      {
        ...(before ? { before } : {}),
        // A private gateway carried this run alone: all its figures are the run's.
        after: privateGateway
          ? { ...after.summary, session: after.summary.gateway }
          : after.summary,
        privateGateway,
      },
      palette,
    )) {
      say(line);
    }
  }
  if (gateway.running) {
    // Its address died with it; the figures stay in the state folder for a standalone gateway.
    const stateDir = options.stateDirOption ? ` --state-dir ${options.stateDirOption}` : '';
    say(
      `dashboard: this run's gateway stopped with it; \`toolmask gateway${stateDir}\` shows its sessions`,
    );
  } else {
    say(`dashboard ${dashboardLink(gateway)}`);
  }
}

const RELEASE_DELAY_MS = 2_000;

/**
 * The launcher's signal handling while a client runs and until the launcher is done: Ctrl-C is
 * the client's (ignored here), SIGTERM and SIGHUP are passed on to a client still running.
 */
class SignalGuard {
  private child: { kill(signal: NodeJS.Signals): unknown } | undefined;
  private held = false;
  private readonly ignore = () => undefined;
  private readonly onTerm = () => this.child?.kill('SIGTERM');
  private readonly onHup = () => this.child?.kill('SIGHUP');

  hold(): void {
    if (this.held) return;
    this.held = true;
    process.on('SIGINT', this.ignore);
    process.on('SIGTERM', this.onTerm);
    process.on('SIGHUP', this.onHup);
  }

  /** The client to pass SIGTERM and SIGHUP on to. */
  passTo(child: { kill(signal: NodeJS.Signals): unknown }): void {
    this.child = child;
  }

  childGone(): void {
    this.child = undefined;
  }

  /**
   * Stops holding, a little later: the launcher is about to exit once it returns, and a Ctrl-C
   * pressed once more in between must not turn the client's exit code into a death by SIGINT. The
   * timer does not keep the process alive.
   */
  release(): void {
    if (!this.held) return;
    this.held = false;
    setTimeout(() => {
      process.off('SIGINT', this.ignore);
      process.off('SIGTERM', this.onTerm);
      process.off('SIGHUP', this.onHup);
    }, RELEASE_DELAY_MS).unref();
  }
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
