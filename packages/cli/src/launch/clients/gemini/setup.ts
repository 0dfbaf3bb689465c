/**
 * `toolmask setup gemini`: the permanent alternative to `toolmask gemini`, for people who run a
 * gateway of their own (`toolmask gateway`, e.g. as a systemd user service) and want their plain
 * `gemini` to use it. It edits gemini's user settings (`~/.gemini/settings.json`; gemini's folder
 * moves with `GEMINI_CLI_HOME`) and the `.env` in that folder (setup/settings-and-env.ts), with
 * the guarantees of every client's setup (setup/apply-plan.ts, setup/undo-plan.ts):
 *
 * - `settings.json`: `mcpServers.toolmask`, the read-back tool (with the access secret: the file is
 *   left 0600); and `security.auth.selectedType = "gemini-api-key"` when no auth type is chosen
 *   and an API key is in the environment or `.env` (see `geminiWanted`).
 * - `.env`: the gateway's routes for the API key (`GOOGLE_GEMINI_BASE_URL`), Vertex AI
 *   (`GOOGLE_VERTEX_BASE_URL`) and Login with Google (`CODE_ASSIST_ENDPOINT`), and `GEMINI_EXP`,
 *   toolmask's flags file (gemini's own masking off: config.ts), which Login with Google does not
 *   read (the gateway sets the thresholds in its `listExperiments` answer instead).
 *
 * The flags file is toolmask's own, in the state folder, merged with the person's own `GEMINI_EXP`
 * file when they have one; `--undo` removes it.
 */
import * as path from 'node:path';
import { geminiDir } from '@toolmask/core/files';
import { valueAt } from '../../files/jsonc-settings.js';
import type { GatewayAccess } from '../../gateway-access.js';
import type { SetupContext } from '../../setup/setup-context.js';
import type { ClientPlan, OwnFile } from '../../setup/setup-plan.js';
import {
  readSettingsAndEnv,
  settingsAndEnvPlan,
  type SettingsAndEnv,
  type SettingsAndEnvWanted,
} from '../../setup/settings-and-env.js';
import { experimentsText, geminiAuthOf, geminiMcpServer } from './config.js';

const NO_AUTH_NOTE =
  'gemini has no auth type chosen and no GEMINI_API_KEY: GOOGLE_GEMINI_BASE_URL is left out (with no auth type, gemini would refuse it). Once you have signed in with an API key, run `toolmask setup gemini --undo` and `toolmask setup gemini` again.';

/**
 * What setup sets. `GOOGLE_GEMINI_BASE_URL` with no auth type chosen makes gemini 0.61.0 pick a
 * "gateway" auth type its CLI refuses ("Invalid auth method selected."). So that variable is set
 * only for the API key: chosen in the settings, or about to be chosen by the key in the
 * environment or `.env`, in which case setup chooses `gemini-api-key` in the settings too, as the
 * launcher does for a run (a recorded change, put back by --undo). With no auth at all, it is left
 * out, and said.
 */
function geminiWanted(
  context: SetupContext,
  found: SettingsAndEnv,
  gateway: GatewayAccess,
  experimentsFile: string,
): SettingsAndEnvWanted & { notes: string[] } {
  const selected = valueAt(found.settings, ['security', 'auth', 'selectedType']);
  const auth = geminiAuthOf(found.settings, context.env, found.env);
  const apiKey = auth.auth === 'gemini-api-key';
  return {
    settings: [
      { path: ['mcpServers', 'toolmask'], value: geminiMcpServer(gateway) },
      ...(apiKey && !auth.chosenBySettings
        ? [{ path: ['security', 'auth', 'selectedType'], value: 'gemini-api-key' }]
        : []),
    ],
    env: {
      ...(apiKey ? { GOOGLE_GEMINI_BASE_URL: `${gateway.url}/gemini` } : {}),
      GOOGLE_VERTEX_BASE_URL: `${gateway.url}/vertex`,
      CODE_ASSIST_ENDPOINT: `${gateway.url}/code-assist`,
      ...(selected !== 'oauth-personal' ? { GEMINI_EXP: experimentsFile } : {}),
    },
    notes: auth.auth === undefined ? [NO_AUTH_NOTE] : [],
  };
}

/** toolmask's `GEMINI_EXP` file, with the person's own flags (if any) merged in, and a line. */
async function experimentsFileOf(
  context: SetupContext,
  found: SettingsAndEnv,
  file: string,
): Promise<{ own: OwnFile; preface: string[] }> {
  // The person's own flags file, if any, is merged in: theirs still apply while set up.
  const ownFlags = context.env['GEMINI_EXP'] || found.env['GEMINI_EXP'];
  return {
    own: { file, text: await experimentsText(ownFlags) },
    preface: ownFlags
      ? [
          `${file}: your own GEMINI_EXP flags (${ownFlags}) merged in; after you change them, run \`toolmask setup gemini --undo\` and \`toolmask setup gemini\` again`,
        ]
      : [],
  };
}

export async function planGeminiSetup(context: SetupContext): Promise<ClientPlan> {
  const found = await readSettingsAndEnv(geminiDir(context.env));
  // Every check that can refuse is behind: the secret may be made now.
  const gateway = await context.gateway();
  const experimentsFile = path.join(context.stateDir, 'gemini-experiments.json');
  const { notes, ...wanted } = geminiWanted(context, found, gateway, experimentsFile);
  const experiments = wanted.env['GEMINI_EXP']
    ? await experimentsFileOf(context, found, experimentsFile)
    : undefined;
  return settingsAndEnvPlan(
    'gemini',
    found,
    wanted,
    {
      notes,
      ...(experiments ? { ownFiles: [experiments.own], preface: experiments.preface } : {}),
    },
    context.env,
  );
}
