/**
 * What toolmask reads and writes of gemini-cli 0.61.0's own configuration, for its launch
 * (launch.ts) and its setup (setup.ts):
 *
 * - **Its folder**: `~/.gemini` (`GEMINI_CLI_HOME` moves its home), and the home, where it looks
 *   for a `.env` last.
 * - **The auth type** gemini will use, as its own selection does: `security.auth.selectedType` in
 *   the settings first; with none chosen, the environment (its `.env` included) decides:
 *   `GOOGLE_GENAI_USE_GCA=true` is Login with Google, `GOOGLE_GENAI_USE_VERTEXAI=true` Vertex AI,
 *   `GEMINI_API_KEY` the API key. (A `GOOGLE_GEMINI_BASE_URL` with none chosen makes gemini pick a
 *   "gateway" auth type its CLI refuses, which is why whoever sets that variable also chooses the
 *   auth type.)
 * - **The read-back tool's MCP server** as its settings name it (`mcpServers.toolmask`).
 * - **Its `GEMINI_EXP` file**: experiment flags it reads instead of asking the server. toolmask's
 *   file sets the two thresholds of gemini's own masking out of reach (two maskers on one history
 *   fight: docs/benchmarks.md, 4d), after the person's own flags when they have a file of their
 *   own (theirs kept, ours in place of any of theirs with the same id).
 */
import * as path from 'node:path';
import { readSettingsText } from '@toolmask/core/settings';
import { geminiDir } from '@toolmask/core/files';
import { CLIENT_MASKING_OFF_FLAGS } from '@toolmask/gateway/launch';
import type { Environment } from '../../environment.js';
import { valueAt } from '../../files/jsonc-settings.js';
import { accessHeaders, type GatewayAccess } from '../../gateway-access.js';
import type { OverlayOf } from '../../run/home-overlay.js';

/** gemini's folder in its home: what a run's home overlay is a view of. */
export const GEMINI_OVERLAY: OverlayOf = { client: 'gemini', folder: '.gemini' };

/** gemini's home folder, where it looks for a .env last (`GEMINI_CLI_HOME`, else the user's). */
export function geminiHome(env: Environment): string {
  return path.dirname(geminiDir(env));
}

/**
 * The read-back tool's MCP server as gemini's settings name it (`mcpServers.toolmask`): Streamable
 * HTTP at `<gateway>/mcp` with the secret in its headers, trusted (it only reads the gateway's own
 * output files); gemini waits at most 10 s for a call.
 */
export function geminiMcpServer(gateway: GatewayAccess): Record<string, unknown> {
  return {
    httpUrl: `${gateway.url}/mcp`,
    headers: accessHeaders(gateway),
    trust: true,
    timeout: 10_000,
  };
}

export type GeminiAuth =
  'gemini-api-key' | 'vertex-ai' | 'oauth-personal' | 'compute-default-credentials' | 'cloud-shell';

const KNOWN_AUTH = new Set<string>([
  'gemini-api-key',
  'vertex-ai',
  'oauth-personal',
  'compute-default-credentials',
  'cloud-shell',
]);

export function geminiAuthOf(
  settings: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
  dotEnv: Readonly<Record<string, string>>,
): { auth?: GeminiAuth; chosenBySettings: boolean } {
  const selected = valueAt(settings, ['security', 'auth', 'selectedType']);
  if (typeof selected === 'string' && KNOWN_AUTH.has(selected)) {
    return { auth: selected as GeminiAuth, chosenBySettings: true };
  }
  const get = (name: string) => env[name] ?? dotEnv[name];
  if (get('GOOGLE_GENAI_USE_GCA') === 'true') {
    return { auth: 'oauth-personal', chosenBySettings: false };
  }
  if (get('GOOGLE_GENAI_USE_VERTEXAI') === 'true') {
    return { auth: 'vertex-ai', chosenBySettings: false };
  }
  if (get('GEMINI_API_KEY')) return { auth: 'gemini-api-key', chosenBySettings: false };
  return { chosenBySettings: false };
}

/**
 * The text of toolmask's experiments file, given the person's own `GEMINI_EXP` file, if any. That
 * file is read only when it is a regular file of at most 1 MB (opened non-blocking: a FIFO never
 * hangs setup or a launch); one that cannot be read or parsed adds no flags.
 */
export async function experimentsText(ownFile: string | undefined): Promise<string> {
  let own: { flags?: unknown[]; experimentIds?: unknown[] } = {};
  if (ownFile) {
    try {
      own = JSON.parse(await readSettingsText(ownFile)) as typeof own;
    } catch {
      own = {};
    }
  }
  const ours = new Set<number>(CLIENT_MASKING_OFF_FLAGS.map((flag) => flag.flagId));
  const flags = (Array.isArray(own.flags) ? own.flags : []).filter(
    (flag) => !ours.has((flag as { flagId?: number } | null)?.flagId ?? -1),
  );
  return (
    JSON.stringify({
      flags: [...flags, ...CLIENT_MASKING_OFF_FLAGS],
      experimentIds: Array.isArray(own.experimentIds) ? own.experimentIds : [],
    }) + '\n'
  );
}
