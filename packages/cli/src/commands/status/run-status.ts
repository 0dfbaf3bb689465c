/**
 * `toolmask status`: the gateway running for a state folder (its `gateway.json`, trusted only when
 * its pid is alive and `/healthz` answers with its instance id: running-gateway.ts), and its
 * figures since it started, from `GET /api/summary` with the access secret of the folder (which
 * the person owns). The same words as a launcher's summary at exit (launch/run/usage-summary.ts).
 */
import {
  findLaunchGateways,
  findRunningGateway,
  loadAccessSecret,
  type LaunchGateway,
  type RunningFile,
} from '@toolmask/gateway';
import { failure } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';
import { dashboardLink, shownUrl, type GatewayAccess } from '../../launch/gateway-access.js';
import { defaultStateDir } from '../../launch/state-dir.js';
import { describeFigures, fetchUsageSummary } from '../../launch/run/usage-summary.js';
import { colorEnabled, createPalette } from '../../render/color.js';
import { formatAge } from '../../render/format.js';
import { describeMaskingSettings, maskingSettingsStatus } from './masking-settings-status.js';

/** The options of `toolmask status` (status-command.ts declares them). */
export interface StatusOptions {
  stateDir?: string;
  json?: boolean;
}

/** The upstreams it was started with, or what that means when none was given. */
function upstreamsLine(running: RunningFile): string {
  const given = Object.entries(running.upstreams ?? {}).flatMap(([api, value]) =>
    typeof value === 'string'
      ? [`${api} ${shownUrl(value)}`]
      : Object.entries(value ?? {}).map(
          ([name, url]) => `openai/~${name} ${shownUrl(String(url))}`,
        ),
  );
  const line =
    given.length > 0
      ? `${given.join(', ')} (the others: the public endpoints)`
      : 'the public endpoints (no --upstream given)';
  // OpenAI has no public default (a key for another OpenAI-compatible server must not go to
  // api.openai.com): said, since `toolmask setup codex` refuses such a gateway.
  return running.upstreams?.openai === undefined ? `${line}; ${NO_OPENAI}` : line;
}

const NO_OPENAI =
  'no OpenAI upstream: codex, qwen and opencode need one (`toolmask gateway --openai-upstream URL`)';

export async function runStatus(options: StatusOptions, io: CliIo): Promise<number> {
  const stateDir = options.stateDir ?? defaultStateDir(io.env);
  const running = await findRunningGateway(stateDir);
  const launches = await findLaunchGateways(stateDir);
  // Which settings file applies to each client is said with or without a gateway running.
  const maskingSettings = await maskingSettingsStatus(io.env, running?.settingsFile);
  const settingsLines = `${describeMaskingSettings(maskingSettings).join('\n')}\n`;
  if (!running && launches.length > 0) {
    if (options.json) {
      const json = { launches: launches.map(launchJson), maskingSettings };
      io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
      return 0;
    }
    await sayLaunches(stateDir, launches, io);
    io.stdout.write(settingsLines);
    return 0;
  }
  if (!running) {
    io.stdout.write(
      options.json ? `${JSON.stringify({ maskingSettings }, null, 2)}\n` : settingsLines,
    );
    throw failure(
      `no gateway is running for ${stateDir}; start one with \`toolmask gateway${options.stateDir ? ` --state-dir ${options.stateDir}` : ''}\` (a launcher run, toolmask gemini, qwen, claude, codex or opencode, without one has a private gateway, and prints its figures when the client exits)`,
    );
  }
  let access: GatewayAccess;
  try {
    access = { url: running.url, accessSecret: await loadAccessSecret(stateDir) };
  } catch (error) {
    throw failure(`cannot read the access secret of ${stateDir}: ${(error as Error).message}`);
  }
  const result = await fetchUsageSummary(access);
  if (!result.ok) throw failure(`no figures: ${result.reason}`);
  const { summary } = result;
  const now = io.now?.() ?? Date.now();
  if (options.json) {
    io.stdout.write(
      `${JSON.stringify(
        {
          gateway: {
            url: running.url,
            pid: running.pid,
            version: running.version,
            startedAt: summary.startedAt,
            upstreams: running.upstreams ?? {},
          },
          sinceStart: summary.gateway,
          dashboard: dashboardLink(access),
          launches: launches.map(launchJson),
          maskingSettings,
        },
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  const palette = createPalette(colorEnabled(io.stdout, io.env));
  const lines = [
    `gateway    ${running.url} (pid ${running.pid}, version ${running.version}, up ${formatAge(now - summary.startedAt)})`,
    `upstreams  ${upstreamsLine(running)}`,
    `since it started: ${describeFigures(summary.gateway, palette)}`,
    `dashboard  ${dashboardLink(access)}`,
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
  await sayLaunches(stateDir, launches, io);
  io.stdout.write(settingsLines);
  return 0;
}

/** A launcher's own gateway in `--json` (its dashboard's token is the state folder's secret). */
function launchJson(launch: LaunchGateway) {
  return { client: launch.client, url: launch.url, pid: launch.pid, startedAt: launch.startedAt };
}

/**
 * The launchers' own gateways (`toolmask claude`, ... without a standalone gateway to reuse):
 * each with its client, address and dashboard, which its client's full-screen UI hides.
 */
async function sayLaunches(
  stateDir: string,
  launches: readonly LaunchGateway[],
  io: CliIo,
): Promise<number> {
  if (launches.length === 0) return 0;
  let secret: string;
  try {
    secret = await loadAccessSecret(stateDir);
  } catch (error) {
    throw failure(`cannot read the access secret of ${stateDir}: ${(error as Error).message}`);
  }
  const now = io.now?.() ?? Date.now();
  const palette = createPalette(colorEnabled(io.stdout, io.env));
  const lines: string[] = [];
  for (const launch of launches) {
    const access = { url: launch.url, accessSecret: secret };
    // The run's figures so far, in the words of its exit line; left out when it gives none.
    const result = await fetchUsageSummary(access);
    lines.push(
      `launch     toolmask ${launch.client ?? 'client'}'s own gateway ${launch.url} (pid ${launch.pid}, up ${formatAge(now - launch.startedAt)})`,
      ...(result.ok ? [`so far: ${describeFigures(result.summary.gateway, palette)}`] : []),
      `dashboard  ${dashboardLink(access)}`,
    );
  }
  io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
