/**
 * `toolmask setup gemini|qwen [--undo]`: the permanent alternative to the launchers, for people who
 * run a gateway of their own (`toolmask gateway`, e.g. as a systemd user service) and want their
 * plain `gemini` or `qwen` to use it. It edits the client's user settings file as minimal text edits
 * (comments and layout kept), and the client's `.env` in its folder for the variables that only the
 * environment can set, after keeping a copy of each file (`<file>.toolmask-backup`, written once,
 * before the first change). What it set, and what was there before, is recorded in the state
 * folder, with a digest of each file before and after: `--undo` puts a file that is still exactly
 * as setup left it back byte for byte, and in a file edited since puts back exactly those values
 * and leaves every other later edit alone. Either way `--undo` then removes the backup it made
 * (found by its digest), which nothing needs once the file is put back: a value the person changed
 * since is left as it is, and the line that says so carries the value from before setup. The files
 * are read and written as `setup-files.ts` says: regular files only, never through a link.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseEnv } from 'node:util';
import { sameJson } from '@toolmask/core/utils';
import { ensurePrivateDirectory, readIfExists, writeAtomically } from '@toolmask/core/storage';
import { ensureOwnDirectory } from './person-files.js';
import { dashboardLink, mcpServerEntry, type GatewayAccess } from './gateway-access.js';
import { SESSION_HEADER, loadAccessSecret } from '@toolmask/gateway';
import { geminiAuthOf } from './gemini-auth.js';
import { experimentsText } from './gemini-experiments.js';
import { parseSettings, setInText, valueAt, type JsonPath } from './jsonc-settings.js';
import {
  checkBackupPath,
  createBackup,
  digest,
  putBackExactly,
  readSetupFile,
  removeSpentBackup,
  SetupError,
  writeSetupFile,
  type FileDigests,
  type SetupFile,
} from './setup-files.js';

export { SetupError } from './setup-files.js';

export type SetupClient = 'gemini' | 'qwen';

interface SettingChange {
  path: JsonPath;
  /** Undefined: the key did not exist. */
  before?: unknown;
  after: unknown;
  /** The outermost object setup created for it (removed again by --undo when left empty). */
  created?: JsonPath;
}

/** The shortest leading part of `jsonPath` that does not exist in `settings`. */
function firstMissing(settings: unknown, jsonPath: JsonPath): JsonPath | undefined {
  for (let length = 1; length < jsonPath.length; length++) {
    if (valueAt(settings, jsonPath.slice(0, length)) === undefined)
      return jsonPath.slice(0, length);
  }
  return undefined;
}

/** An object with nothing in it but empty objects. */
function isEmptyTree(value: unknown): boolean {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.values(value).every((inner) => isEmptyTree(inner))
  );
}

interface EnvChange {
  name: string;
  before?: string;
  after: string;
}

/** A file that holds the gateway's access secret is readable by its owner only. */
const SECRET_FILE_MODE = 0o600;

interface SetupRecord {
  client: SetupClient;
  settingsFile: string;
  /** There was no settings file before: --undo removes it again if nothing else is in it. */
  settingsFileCreated?: boolean;
  envFile: string;
  settings: SettingChange[];
  env: EnvChange[];
  /** toolmask's GEMINI_EXP file, removed by --undo. */
  experimentsFile?: string;
  /** Absent in the record of a setup before byte-exact --undo: values are put back one by one. */
  digests?: { settings: FileDigests; env: FileDigests };
  /** The settings file's permission bits before setup made it 0600 (it holds the secret). */
  settingsModeBefore?: number;
}

export interface SetupReport {
  /** Lines for the person: what changed (or was put back), and what to do next. */
  lines: string[];
}

function recordFile(stateDir: string, client: SetupClient): string {
  return path.join(stateDir, `setup-${client}.json`);
}

/** A file with something in it has a backup (an empty one is put back without). */
const needsBackup = (file: SetupFile | undefined): file is SetupFile =>
  file !== undefined && file.bytes.length > 0;

function describe(value: unknown): string {
  return value === undefined ? '(unset)' : JSON.stringify(value);
}

/** `.env` text with `name=value` set (a line replaced in place, or appended). */
function setEnvLine(text: string, name: string, value: string | undefined): string {
  const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  const at = lines.findIndex((line) => new RegExp(`^\\s*(export\\s+)?${name}\\s*=`).test(line));
  if (value === undefined) {
    if (at >= 0) lines.splice(at, 1);
  } else if (at >= 0) {
    lines[at] = `${name}=${value}`;
  } else {
    lines.push(`${name}=${value}`);
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

interface Wanted {
  settings: Array<{ path: JsonPath; value: unknown }>;
  env: Record<string, string>;
  /** Lines for the person about what was left out, and why. */
  notes: string[];
}

/**
 * gemini: `GOOGLE_GEMINI_BASE_URL` with no auth type chosen makes gemini 0.61.0 pick a "gateway"
 * auth type its CLI refuses ("Invalid auth method selected."). So that variable is set only for the
 * API key: chosen in the settings, or about to be chosen by the key in the environment or `.env`,
 * in which case setup chooses `gemini-api-key` in the settings too, as the launcher does for a run
 * (a recorded change, put back by --undo). With no auth at all, it is left out.
 */
function wanted(
  client: SetupClient,
  gateway: GatewayAccess,
  settings: Record<string, unknown>,
  experimentsFile: string,
  auth: ReturnType<typeof geminiAuthOf>,
): Wanted {
  const gatewayUrl = gateway.url;
  if (client === 'gemini') {
    const selected = valueAt(settings, ['security', 'auth', 'selectedType']);
    const apiKey = auth.auth === 'gemini-api-key';
    return {
      settings: [
        {
          path: ['mcpServers', 'toolmask'],
          value: mcpServerEntry(gateway, 'gemini'),
        },
        ...(apiKey && !auth.chosenBySettings
          ? [{ path: ['security', 'auth', 'selectedType'], value: 'gemini-api-key' }]
          : []),
      ],
      notes:
        auth.auth === undefined
          ? [
              'gemini has no auth type chosen and no GEMINI_API_KEY: GOOGLE_GEMINI_BASE_URL is left out (with no auth type, gemini would refuse it). Once you have signed in with an API key, run `toolmask setup gemini --undo` and `toolmask setup gemini` again.',
            ]
          : [],
      env: {
        ...(apiKey ? { GOOGLE_GEMINI_BASE_URL: `${gatewayUrl}/gemini` } : {}),
        GOOGLE_VERTEX_BASE_URL: `${gatewayUrl}/vertex`,
        CODE_ASSIST_ENDPOINT: `${gatewayUrl}/code-assist`,
        ...(selected !== 'oauth-personal' ? { GEMINI_EXP: experimentsFile } : {}),
      },
    };
  }
  return {
    settings: [
      {
        path: ['mcpServers', 'toolmask'],
        value: mcpServerEntry(gateway, 'qwen'),
      },
      {
        path: ['model', 'generationConfig', 'customHeaders', SESSION_HEADER],
        value: '${session_id}',
      },
      { path: ['outboundCorrelation', 'allowDynamicHeaderValues'], value: true },
      { path: ['context', 'clearContextOnIdle', 'toolResultsThresholdMinutes'], value: -1 },
      { path: ['context', 'clearContextOnIdle', 'toolResultsTotalCharsThreshold'], value: -1 },
    ],
    env: { OPENAI_BASE_URL: `${gatewayUrl}/openai/v1` },
    notes: [],
  };
}

export async function applySetup(options: {
  client: SetupClient;
  /** The client's folder: `~/.gemini` (or `$GEMINI_CLI_HOME/.gemini`), `~/.qwen`. */
  clientDir: string;
  gatewayUrl: string;
  stateDir: string;
  /** The environment the client will run in (gemini: tells its auth type). @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * What the caller found at `gatewayUrl` (the command checks that a gateway answers there), in
   * place of the generic advice to keep one running there.
   */
  gatewayLines?: readonly string[];
}): Promise<SetupReport> {
  const { client, clientDir, gatewayUrl, stateDir } = options;
  if ((await readIfExists(recordFile(stateDir, client))) !== undefined) {
    throw new SetupError(
      `toolmask is set up for ${client} already; run \`toolmask setup ${client} --undo\` first`,
    );
  }
  const settingsFile = path.join(clientDir, 'settings.json');
  const envFile = path.join(clientDir, '.env');
  // Everything that can refuse is checked before anything is written. A folder reached through a
  // link (a dotfiles manager's ~/.gemini) is fine; a file that is a link is refused (setup-files.ts).
  const settingsOriginal = await readSetupFile(settingsFile);
  const settingsText = settingsOriginal?.bytes.toString('utf8');
  const settings = parseSettings(settingsText ?? '', settingsFile);
  const envOriginal = await readSetupFile(envFile);
  const envText = envOriginal?.bytes.toString('utf8') ?? '';
  for (const [file, original] of [
    [settingsFile, settingsOriginal],
    [envFile, envOriginal],
  ] as const) {
    if (needsBackup(original)) await checkBackupPath(file);
  }
  const envBefore = parseEnv(envText) as Record<string, string>;
  const experimentsFile = path.join(stateDir, 'gemini-experiments.json');
  // The secret the gateway of this state folder will require on /mcp (made now if it has none).
  const gateway = { url: gatewayUrl, accessSecret: await loadAccessSecret(stateDir) };
  const plan = wanted(
    client,
    gateway,
    settings,
    experimentsFile,
    geminiAuthOf(settings, options.env ?? process.env, envBefore),
  );

  // Remember before changing anything, so an interrupted setup can always be undone.
  const record: SetupRecord = {
    client,
    settingsFile,
    ...(settingsText === undefined ? { settingsFileCreated: true } : {}),
    ...(settingsOriginal ? { settingsModeBefore: settingsOriginal.mode & 0o777 } : {}),
    envFile,
    settings: plan.settings.map((change) => {
      const created = firstMissing(settings, change.path);
      return {
        path: change.path,
        ...(valueAt(settings, change.path) !== undefined
          ? { before: valueAt(settings, change.path) }
          : {}),
        after: change.value,
        ...(created ? { created } : {}),
      };
    }),
    env: Object.entries(plan.env).map(([name, value]) => ({
      name,
      ...(envBefore[name] !== undefined ? { before: envBefore[name] } : {}),
      after: value,
    })),
    ...(plan.env['GEMINI_EXP'] ? { experimentsFile } : {}),
  };
  let text = settingsText ?? '';
  for (const change of record.settings) text = setInText(text, change.path, change.after);
  let env = envText;
  for (const change of record.env) env = setEnvLine(env, change.name, change.after);
  record.digests = {
    settings: {
      ...(settingsOriginal ? { before: digest(settingsOriginal.bytes) } : {}),
      after: digest(text),
    },
    env: { ...(envOriginal ? { before: digest(envOriginal.bytes) } : {}), after: digest(env) },
  };
  await ensurePrivateDirectory(stateDir);
  await writeAtomically(recordFile(stateDir, client), JSON.stringify(record, null, 2) + '\n');
  const lines: string[] = [];
  if (plan.env['GEMINI_EXP']) {
    // The person's own flags file, if any, is merged in: theirs still apply while set up.
    const own = (options.env ?? process.env)['GEMINI_EXP'] || envBefore['GEMINI_EXP'];
    await writeAtomically(experimentsFile, await experimentsText(own));
    if (own) {
      lines.push(
        `${experimentsFile}: your own GEMINI_EXP flags (${own}) merged in; after you change them, run \`toolmask setup gemini --undo\` and \`toolmask setup gemini\` again`,
      );
    }
  }
  // The client's folder is the person's, not checked like toolmask's own state folder (its mode
  // is theirs); made when missing.
  await ensureOwnDirectory(clientDir);
  const backups: string[] = [];
  if (needsBackup(settingsOriginal))
    backups.push(await createBackup(settingsFile, settingsOriginal.bytes));
  for (const change of record.settings) {
    lines.push(
      `${settingsFile}: ${change.path.join('.')} ${describe(change.before)} → ${describe(change.after)}`,
    );
  }
  // It now holds the gateway's access secret (the MCP server's headers): readable by its owner only.
  await writeSetupFile(settingsFile, text, SECRET_FILE_MODE);
  if (settingsOriginal && (settingsOriginal.mode & 0o777) !== SECRET_FILE_MODE) {
    lines.push(
      `${settingsFile}: now 0600 (it was 0${(settingsOriginal.mode & 0o777).toString(8)}): it holds the gateway's access secret`,
    );
  }
  if (needsBackup(envOriginal)) backups.push(await createBackup(envFile, envOriginal.bytes));
  for (const change of record.env) {
    lines.push(`${envFile}: ${change.name} ${change.before ?? '(unset)'} → ${change.after}`);
  }
  await writeSetupFile(envFile, env, envOriginal?.mode);
  for (const backup of backups) lines.push(`backup: ${backup}`);
  lines.push(...plan.notes);
  lines.push(
    ...(options.gatewayLines ?? [
      `Now keep a gateway running at ${gatewayUrl} (\`toolmask gateway\`; docs/gateway.md shows a systemd user service).`,
    ]),
    `Its dashboard, for you: ${dashboardLink(gateway)} (the read-back tool's settings carry the same secret).`,
    `${client === 'gemini' ? 'gemini' : 'qwen'} reads ${envFile} only where it finds no other .env first (docs/gateway.md).`,
  );
  return { lines };
}

export async function undoSetup(options: {
  client: SetupClient;
  stateDir: string;
}): Promise<SetupReport> {
  const file = recordFile(options.stateDir, options.client);
  const recordText = await readIfExists(file);
  if (recordText === undefined) {
    throw new SetupError(`toolmask is not set up for ${options.client} (nothing to undo)`);
  }
  const record = JSON.parse(recordText) as SetupRecord;
  const lines: string[] = [];
  // Everything that can refuse is checked before anything is written.
  const settingsNow = await readSetupFile(record.settingsFile);
  const envNow = await readSetupFile(record.envFile);
  if (
    settingsNow !== undefined &&
    !(await putBackExactly(
      record.settingsFile,
      settingsNow,
      record.digests?.settings,
      lines,
      record.settingsModeBefore !== undefined ? { modeBefore: record.settingsModeBefore } : {},
    ))
  ) {
    const settingsText = settingsNow.bytes.toString('utf8');
    const settings = parseSettings(settingsText, record.settingsFile);
    let text = settingsText;
    for (const change of record.settings) {
      // A value the person changed since is theirs now: left alone.
      if (!sameJson(valueAt(settings, change.path), change.after)) {
        lines.push(
          `${record.settingsFile}: ${change.path.join('.')} changed since setup; left as it is (before setup: ${describe(change.before)})`,
        );
        continue;
      }
      text = setInText(text, change.path, change.before);
      lines.push(`${record.settingsFile}: ${change.path.join('.')} → ${describe(change.before)}`);
    }
    // Objects setup created and that hold nothing now go too.
    for (const change of record.settings) {
      if (
        change.created &&
        isEmptyTree(valueAt(parseSettings(text, record.settingsFile), change.created))
      ) {
        text = setInText(text, change.created, undefined);
      }
    }
    const created = record.settingsFileCreated === true;
    if (created && isEmptyTree(parseSettings(text, record.settingsFile))) {
      await fs.rm(record.settingsFile, { force: true });
      lines.push(`${record.settingsFile}: removed (setup had created it)`);
    } else {
      await writeSetupFile(record.settingsFile, text, settingsNow.mode);
    }
    await removeSpentBackup(record.settingsFile, record.digests?.settings, lines);
  }
  if (
    envNow !== undefined &&
    !(await putBackExactly(record.envFile, envNow, record.digests?.env, lines))
  ) {
    const envText = envNow.bytes.toString('utf8');
    const current = parseEnv(envText) as Record<string, string>;
    let env = envText;
    for (const change of record.env) {
      if (current[change.name] !== change.after) {
        lines.push(
          `${record.envFile}: ${change.name} changed since setup; left as it is (before setup: ${change.before ?? '(unset)'})`,
        );
        continue;
      }
      env = setEnvLine(env, change.name, change.before);
      lines.push(`${record.envFile}: ${change.name} → ${change.before ?? '(unset)'}`);
    }
    const created = record.digests
      ? record.digests.env.before === undefined
      : !record.env.some((change) => change.before !== undefined);
    if (created && env === '') await fs.rm(record.envFile, { force: true });
    else await writeSetupFile(record.envFile, env, envNow.mode);
    await removeSpentBackup(record.envFile, record.digests?.env, lines);
  }
  if (record.experimentsFile) await fs.rm(record.experimentsFile, { force: true });
  await fs.rm(file, { force: true });
  return { lines };
}
