/**
 * What `toolmask gemini` sets up so that the person's own `gemini` (npm @google/gemini-cli 0.61.0)
 * talks through the gateway, by environment only (their files are not edited):
 *
 * - **Routing by auth type.** API key: `GOOGLE_GEMINI_BASE_URL=<gateway>/gemini`, set only for that
 *   auth type (unset auth + this variable makes 0.61.0 pick an auth type its CLI refuses). Vertex
 *   AI: `GOOGLE_VERTEX_BASE_URL=<gateway>/vertex`. Login with Google (Code Assist, also Cloud
 *   Shell and compute credentials): `CODE_ASSIST_ENDPOINT=<gateway>/code-assist`. The person's own
 *   values of these (environment or `.env`) become the gateway's upstreams.
 * - **Read-back.** `mcpServers.toolmask` (Streamable HTTP at `<gateway>/mcp`, trusted: it is
 *   read-only and confined) in a one-run settings overlay (run/home-overlay.ts). When no auth
 *   type is chosen but an API key is in the environment, the overlay also chooses `gemini-api-key`.
 * - **The CLI's own masking off.** For API key and Vertex: a `GEMINI_EXP` file whose two masking
 *   thresholds are out of reach (merged into the person's own `GEMINI_EXP` file if they have one).
 *   For Code Assist, `GEMINI_EXP` would drop the server's experiment flags: the gateway sets the
 *   thresholds in the `listExperiments` answer instead.
 * - **A session header** (`GEMINI_CLI_CUSTOM_HEADERS`: `x-toolmask-session:<id>`) telling this
 *   run's conversations apart, and loopback excluded from any proxy (`NO_PROXY`), which gemini
 *   would otherwise use even for the gateway.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { geminiDir } from '@toolmask/core/files';
import { userSettingsPath } from '@toolmask/core/settings';
import { SESSION_HEADER, type UpstreamUrls } from '@toolmask/gateway/launch';
import { appendList, loopbackNoProxy, type Environment } from '../../environment.js';
import { readDotEnv } from '../../files/dotenv.js';
import { readSettingsObject } from '../../files/jsonc-settings.js';
import { shownUrl, type GatewayAccess } from '../../gateway-access.js';
import { LaunchError } from '../../launch-error.js';
import { effectiveUpstreams } from '../../run/gateway-reuse.js';
import {
  createHomeOverlay,
  type HomeOverlay,
  type SettingsInjection,
} from '../../run/home-overlay.js';
import { launchBanner, type LaunchRequest, type PlannedLaunch } from '../../run/launch-plan.js';
import { keepsClientMasking } from './args.js';
import {
  experimentsText,
  GEMINI_OVERLAY,
  geminiAuthOf,
  geminiHome,
  geminiMcpServer,
  type GeminiAuth,
} from './config.js';

export type { GeminiAuth };

/** The person's own base URLs (environment, then `.env`): where the gateway sends each API. */
function upstreamsOf(env: Environment, dotEnv: Record<string, string>): Partial<UpstreamUrls> {
  const pick = (name: string) => env[name] || dotEnv[name] || undefined;
  const upstreams: Partial<UpstreamUrls> = {};
  const gemini = pick('GOOGLE_GEMINI_BASE_URL');
  const vertex = pick('GOOGLE_VERTEX_BASE_URL');
  const codeAssist = pick('CODE_ASSIST_ENDPOINT');
  if (gemini) upstreams.gemini = gemini;
  if (vertex) upstreams.vertex = vertex;
  if (codeAssist) upstreams.codeAssist = codeAssist;
  return upstreams;
}

/** Where gemini's requests of an auth type go, for the banner (the gateway's default or own). */
export function geminiUpstreamShown(
  upstreams: Partial<UpstreamUrls>,
  api: 'gemini' | 'vertex' | 'codeAssist',
): string {
  return effectiveUpstreams(upstreams)[api] ?? "each request's regional Vertex AI endpoint";
}

export class GeminiLaunchError extends LaunchError {}

/** What a launch needs to know before any gateway starts (planGeminiLaunch). */
export interface GeminiPlan {
  auth: GeminiAuth;
  /** The auth type is the settings' own choice (not inferred from an API key). */
  chosenBySettings: boolean;
  /** The person's own base URLs: the gateway's upstreams for this run. */
  upstreams: Partial<UpstreamUrls>;
  /** The `.env` gemini would load (for the person's own `GEMINI_EXP`). */
  dotEnv: Record<string, string>;
  /** The person chose whether gemini sets the terminal title (`ui.hideWindowTitle`). */
  ownTitle: boolean;
}

/**
 * Reads the person's settings and `.env` once and decides the auth type, before any gateway is
 * started: with no auth type chosen and no API key there is nothing to launch.
 */
export async function planGeminiLaunch(env: Environment, cwd: string): Promise<GeminiPlan> {
  const settingsFile = userSettingsPath(env);
  const settings = await readSettingsObject(settingsFile);
  const dotEnv = readDotEnv(cwd, '.gemini', geminiHome(env));
  const { auth, chosenBySettings } = geminiAuthOf(settings, env, dotEnv);
  if (!auth) {
    throw new GeminiLaunchError(
      'gemini has no auth method chosen yet: run `gemini` once and sign in (or set GEMINI_API_KEY), then run `toolmask gemini` again',
    );
  }
  const ui = settings['ui'];
  return {
    auth,
    chosenBySettings: chosenBySettings === true,
    ownTitle: typeof ui === 'object' && ui !== null && 'hideWindowTitle' in ui,
    upstreams: upstreamsOf(env, dotEnv),
    dotEnv,
  };
}

export interface GeminiLaunch {
  env: Environment;
  auth: GeminiAuth;
  overlay: HomeOverlay;
  /** One line for the person before gemini starts. */
  summary: string;
}

export async function prepareGeminiLaunch(options: {
  env: Environment;
  cwd: string;
  /** What planGeminiLaunch found, before the gateway started. */
  plan: GeminiPlan;
  gateway: GatewayAccess;
  stateDir: string;
  sessionId: string;
  /** Leave gemini's own masking on (for measuring the two together). @default false */
  keepClientMasking?: boolean;
}): Promise<GeminiLaunch> {
  const { env, gateway } = options;
  const gatewayUrl = gateway.url;
  const realDir = geminiDir(env);
  const { auth, chosenBySettings, dotEnv } = options.plan;
  const injections: SettingsInjection[] = [
    {
      path: ['mcpServers', 'toolmask'],
      value: geminiMcpServer(gateway),
    },
  ];
  if (!chosenBySettings && auth === 'gemini-api-key') {
    injections.push({ path: ['security', 'auth', 'selectedType'], value: 'gemini-api-key' });
  }
  // gemini 0.61.0 sets the terminal title (the folder, status icons) over the launcher's, which
  // says where the dashboard is; unless the person chose, it sets none for the run (issue 35).
  if (!options.plan.ownTitle) injections.push({ path: ['ui', 'hideWindowTitle'], value: true });
  const launchDir = path.join(options.stateDir, 'launch');
  const overlay = await createHomeOverlay({ of: GEMINI_OVERLAY, realDir, launchDir, injections });

  const childEnv: Environment = { ...env, GEMINI_CLI_HOME: overlay.home };
  if (auth === 'gemini-api-key') childEnv['GOOGLE_GEMINI_BASE_URL'] = `${gatewayUrl}/gemini`;
  childEnv['GOOGLE_VERTEX_BASE_URL'] = `${gatewayUrl}/vertex`;
  childEnv['CODE_ASSIST_ENDPOINT'] = `${gatewayUrl}/code-assist`;
  childEnv['GEMINI_CLI_CUSTOM_HEADERS'] = appendList(
    env['GEMINI_CLI_CUSTOM_HEADERS'],
    [`${SESSION_HEADER}:${options.sessionId}`],
    ',',
  );
  Object.assign(childEnv, loopbackNoProxy(env));
  if (!options.keepClientMasking && (auth === 'gemini-api-key' || auth === 'vertex-ai')) {
    // The person's own flags file, from wherever gemini would have found it.
    const ownExperiments = env['GEMINI_EXP'] || dotEnv['GEMINI_EXP'];
    childEnv['GEMINI_EXP'] = await writeExperimentsFile(overlay.home, ownExperiments);
  }
  // Where this auth type's requests go, as qwen's banner says it: the person's own base URL or
  // the public endpoint (the reused gateway sends them there too: gateway-reuse.ts).
  const api = auth === 'gemini-api-key' ? 'gemini' : auth === 'vertex-ai' ? 'vertex' : 'codeAssist';
  const upstream = shownUrl(geminiUpstreamShown(options.plan.upstreams, api));
  return {
    env: childEnv,
    auth,
    overlay,
    summary: launchBanner('gemini', gateway, upstream, auth),
  };
}

/** A GEMINI_EXP file for this run (config.ts `experimentsText`), in the run's own folder. */
async function writeExperimentsFile(folder: string, ownFile: string | undefined): Promise<string> {
  const file = path.join(folder, 'gemini-experiments.json');
  await fs.writeFile(file, await experimentsText(ownFile), { mode: 0o600 });
  return file;
}

/** `toolmask gemini`: the plan, then gemini set up against the run's gateway. */
export async function launchGemini(request: LaunchRequest): Promise<PlannedLaunch> {
  const plan = await planGeminiLaunch(request.env, request.cwd);
  return {
    upstreams: plan.upstreams,
    async prepare({ gateway, sessionId, stateDir }) {
      const launch = await prepareGeminiLaunch({
        env: request.env,
        cwd: request.cwd,
        plan,
        gateway,
        stateDir,
        sessionId,
        keepClientMasking: keepsClientMasking(request.options),
      });
      return { env: launch.env, summary: launch.summary, cleanup: () => launch.overlay.restore() };
    },
  };
}
