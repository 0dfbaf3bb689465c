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
 * decides what it means (gemini cancels a request, then exits); the launcher ignores it meanwhile.
 * SIGTERM and SIGHUP sent to the launcher alone are passed on to the client.
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
import type { GatewayAccess } from './gateway-access.js';
import type { Environment } from './gemini-launch.js';

export interface ClientSetup {
  env: Environment;
  /** The client's arguments, when the setup changed them; default the person's own. */
  args?: readonly string[];
  /** One line for the person before the client starts. */
  summary: string;
  /** Undoes what the setup made for this run (overlays); returns warnings. */
  cleanup(): Promise<string[]>;
}

export interface LaunchOptions {
  /** The client's command name, for messages: `gemini`, `qwen`. */
  client: string;
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
  /** Extra gateway options (tests: settings, thresholds). */
  gatewaySettingsFile?: string;
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
  if (existing && servesUpstreams(existing.upstreams ?? {}, options.upstreams)) {
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

/** Whether a gateway started with `has` sends requests where `wanted` says. */
function servesUpstreams(has: Partial<UpstreamUrls>, wanted: Partial<UpstreamUrls>): boolean {
  return Object.entries(wanted).every(
    ([key, value]) => JSON.stringify(has[key as keyof UpstreamUrls]) === JSON.stringify(value),
  );
}

/** Runs the client through the gateway; resolves to the exit code to exit with. */
export async function launchClient(options: LaunchOptions): Promise<number> {
  const gateway = await ensureGateway(options);
  let setup: ClientSetup | undefined;
  try {
    setup = await options.setup(gateway, randomUUID());
    options.say(setup.summary);
    return await runChild(options, setup.env, setup.args ?? options.args);
  } finally {
    for (const warning of (await setup?.cleanup()) ?? []) options.say(`toolmask: ${warning}`);
    await gateway.running?.close();
  }
}

function runChild(
  options: LaunchOptions,
  env: Environment,
  args: readonly string[],
): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(options.bin, [...args], {
      stdio: 'inherit',
      env: env as NodeJS.ProcessEnv,
      cwd: options.cwd,
    });
    const ignore = () => undefined;
    const passOn = (signal: NodeJS.Signals) => () => child.kill(signal);
    const onTerm = passOn('SIGTERM');
    const onHup = passOn('SIGHUP');
    process.on('SIGINT', ignore);
    process.on('SIGTERM', onTerm);
    process.on('SIGHUP', onHup);
    const done = (code: number) => {
      process.off('SIGINT', ignore);
      process.off('SIGTERM', onTerm);
      process.off('SIGHUP', onHup);
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
