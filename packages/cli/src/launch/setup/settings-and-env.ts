/**
 * The two files `toolmask setup gemini|qwen` edit in the client's folder (`~/.gemini`,
 * `~/.qwen`): its user settings (`settings.json`), and its `.env` for the variables that only the
 * environment can set. Both are read, parsed and their backup paths checked before the plan asks
 * for the gateway's access secret (which writes the state folder), so a refused setup writes
 * nothing; and they are undone as one (setup-plan.ts `undoAsOne`). The settings file gets the
 * access secret (the MCP server's headers): it is left 0600.
 */
import * as path from 'node:path';
import { parseSettings, type JsonPath } from '../files/jsonc-settings.js';
import { needsBackup } from './apply-plan.js';
import { envSet, envValues } from './env-changes.js';
import { jsonSet } from './json-changes.js';
import { checkBackupPath, readSetupFile, type SetupFile } from './setup-files.js';
import type { ClientPlan } from './setup-plan.js';

/** A client folder's `settings.json` and `.env` as setup found them. */
export interface SettingsAndEnv {
  settingsFile: string;
  settingsOriginal: SetupFile | undefined;
  settings: Record<string, unknown>;
  envFile: string;
  envOriginal: SetupFile | undefined;
  /** The variables the `.env` sets. */
  env: Record<string, string>;
}

/**
 * Reads both files of `clientDir` (a folder reached through a link, a dotfiles manager's, is
 * fine; a file that is a link is refused: setup-files.ts), and checks their backup paths.
 */
export async function readSettingsAndEnv(clientDir: string): Promise<SettingsAndEnv> {
  const settingsFile = path.join(clientDir, 'settings.json');
  const envFile = path.join(clientDir, '.env');
  const settingsOriginal = await readSetupFile(settingsFile);
  const settings = parseSettings(settingsOriginal?.bytes.toString('utf8') ?? '', settingsFile);
  const envOriginal = await readSetupFile(envFile);
  for (const [file, original] of [
    [settingsFile, settingsOriginal],
    [envFile, envOriginal],
  ] as const) {
    if (needsBackup(original)) await checkBackupPath(file);
  }
  const env = envValues(envOriginal?.bytes.toString('utf8') ?? '');
  return { settingsFile, settingsOriginal, settings, envFile, envOriginal, env };
}

/** What setup sets in the two files. */
export interface SettingsAndEnvWanted {
  settings: ReadonlyArray<{ path: JsonPath; value: unknown }>;
  env: Readonly<Record<string, string>>;
}

/**
 * The plan of a setup that edits `found`'s two files, undone as one; the client named in its
 * closing line, which says where it looks for a `.env` first.
 */
export function settingsAndEnvPlan(
  client: string,
  found: SettingsAndEnv,
  wanted: SettingsAndEnvWanted,
  extra: Pick<ClientPlan, 'notes' | 'preface' | 'ownFiles'>,
  /** The environment setup runs in: a variable set there wins over the `.env` in the client. */
  environment: Readonly<Record<string, string | undefined>> = {},
): ClientPlan {
  // dotenv never overrides a variable the environment already has: qwen and gemini started
  // from this shell would not read setup's value.
  const shadowed = Object.entries(wanted.env).flatMap(([name, value]) => {
    const own = environment[name];
    return own && own !== value
      ? [
          `${name} is set in this shell's environment (${own}), which ${client} takes over ${found.envFile}: ${client} started from here goes around the gateway; unset it (and remove it from your shell's profile).`,
        ]
      : [];
  });
  return {
    files: [
      {
        file: found.settingsFile,
        format: 'json',
        original: found.settingsOriginal,
        changes: wanted.settings.map((change) =>
          jsonSet(found.settings, change.path, change.value),
        ),
        holdsAccessSecret: true,
      },
      {
        file: found.envFile,
        format: 'env',
        original: found.envOriginal,
        changes: Object.entries(wanted.env).map(([name, value]) => envSet(found.env, name, value)),
      },
    ],
    ...extra,
    closing: [
      `${client} reads ${found.envFile} only where it finds no other .env first (docs/gateway.md).`,
      ...shadowed,
    ],
    undoAsOne: true,
  };
}
