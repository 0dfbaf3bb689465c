/**
 * The edits `toolmask setup claude|codex|opencode` makes to a client's own files, and how
 * `--undo` takes them back: the same guarantees as `toolmask setup gemini|qwen`
 * (permanent-setup.ts), for any number of JSON (JSONC) and TOML files.
 *
 * - Each change is recorded with what was there before, in `<state>/setup-<client>.json`, before
 *   anything is written, with a SHA-256 digest of each file before and after.
 * - A file with something in it is copied first to `<file>.toolmask-backup` (`setup-files.ts`:
 *   created `O_EXCL | O_NOFOLLOW`, 0600); the files are read and replaced as that module says
 *   (regular files of at most 1 MB unless the plan gives a file a larger bound, never through a
 *   link, a FIFO never opened for long).
 * - A file that gets the gateway's access secret (`holdsAccessSecret`) is left 0600, whatever its
 *   mode was: the secret opens the person's stored tool outputs. Its mode before is recorded.
 * - `--undo` puts a file that is still as setup left it back byte for byte (its backup's bytes and
 *   its mode from before, or no file when setup created it) and removes the backup. In a file
 *   changed since (by the person, or by the client itself: claude rewrites `~/.claude.json`,
 *   opencode adds `$schema`), it takes back only its own changes, each one only when it is still
 *   what setup wrote, says which ones it left, and removes the backup when it still holds the file
 *   as setup found it; such a file stays 0600. Each file is undone on its own: one that cannot be
 *   (a link, a FIFO, a file too large, text it cannot follow) is reported with why, the others are
 *   undone, and the record keeps only the ones left, for another `--undo`.
 *
 * Changes are minimal text edits: JSON through jsonc-parser (comments and layout kept), TOML by
 * `setup-toml.ts` (one value replaced, one line inserted, whole tables appended), the result
 * checked by smol-toml (codex-toml.ts) before it is written.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { applyEdits, modify } from 'jsonc-parser';
import { describeError } from '@toolmask/core/errors';
import { sameJson } from '@toolmask/core/utils';
import { ensurePrivateDirectory, readIfExists, writeAtomically } from '@toolmask/core/storage';
import { parseSettings, setInText, valueAt, type JsonPath } from './jsonc-settings.js';
import { ensureOwnDirectory } from './person-files.js';
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
import {
  removeTopLevel,
  scanToml,
  setTopLevel,
  TomlScanError,
  tomlProblem,
  type TomlPair,
} from './setup-toml.js';

/** One change setup makes to a file, with what it takes back. */
export type SetupChange =
  /** A JSON value set (`before` undefined: the key was not there). */
  | { kind: 'json-set'; path: JsonPath; before?: unknown; after: unknown; created?: JsonPath }
  /** A string added at the end of a JSON array (`created`: the array was not there). */
  | {
      kind: 'json-add-item';
      path: JsonPath;
      item: string;
      arrayCreated: boolean;
      created?: JsonPath;
    }
  /** A top-level TOML key's raw value (`before` undefined: the line was not there). */
  | { kind: 'toml-top'; key: string; before?: string; after: string }
  /** A raw value of a pair in an existing TOML table, replaced in place. */
  | { kind: 'toml-value'; table: string[]; key: string; before: string; after: string }
  /** Whole TOML tables appended at the end of the file (this exact text). */
  | { kind: 'toml-tables'; names: string[]; text: string };

export type SetupFormat = 'json' | 'toml';

/** A file setup edits: what it found, and the changes it makes. */
export interface PlannedFile {
  file: string;
  format: SetupFormat;
  original: SetupFile | undefined;
  changes: SetupChange[];
  /** The bound of its reads (setup's and `--undo`'s), when not 1 MB. */
  maxBytes?: number;
  /** A change puts the gateway's access secret in it: it is left 0600. */
  holdsAccessSecret?: boolean;
}

/** What setup will do for a client: its files, and lines for the person. */
export interface ClientPlan {
  files: PlannedFile[];
  /** Said after the changes (what the person must know or do). */
  notes: string[];
}

interface RecordedFile {
  file: string;
  format: SetupFormat;
  /** There was no such file before setup. */
  created: boolean;
  digests: FileDigests;
  changes: SetupChange[];
  /** The bound of its reads, when not 1 MB. */
  maxBytes?: number;
  /** Its permission bits before setup (absent: setup created it). */
  modeBefore?: number;
  /** Setup made it 0600 (it holds the access secret). */
  madePrivate?: boolean;
}

/** `<state>/setup-<client>.json` of these clients. */
interface ClientRecord {
  client: string;
  version: 2;
  files: RecordedFile[];
}

export function setupRecordFile(stateDir: string, client: string): string {
  return path.join(stateDir, `setup-${client}.json`);
}

/** Refuses (SetupError) when `client` is set up already (its record is there). */
export async function refuseWhenSetUp(stateDir: string, client: string): Promise<void> {
  if ((await readIfExists(setupRecordFile(stateDir, client))) !== undefined) {
    throw new SetupError(
      `toolmask is set up for ${client} already; run \`toolmask setup ${client} --undo\` first`,
    );
  }
}

/** A file with something in it has a backup (an empty one is put back without). */
const needsBackup = (file: SetupFile | undefined): file is SetupFile =>
  file !== undefined && file.bytes.length > 0;

function describe(value: unknown): string {
  return value === undefined ? '(unset)' : JSON.stringify(value);
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

/** The shortest leading part of `jsonPath` that does not exist in `settings`. */
export function firstMissing(settings: unknown, jsonPath: JsonPath): JsonPath | undefined {
  for (let length = 1; length < jsonPath.length; length++) {
    if (valueAt(settings, jsonPath.slice(0, length)) === undefined)
      return jsonPath.slice(0, length);
  }
  return undefined;
}

/** A JSON change that sets `path` to `after` in `settings`, with what was there. */
export function jsonSet(settings: unknown, jsonPath: JsonPath, after: unknown): SetupChange {
  const before = valueAt(settings, jsonPath);
  const created = firstMissing(settings, jsonPath);
  return {
    kind: 'json-set',
    path: jsonPath,
    ...(before !== undefined ? { before } : {}),
    after,
    ...(created ? { created } : {}),
  };
}

/** A JSON change that adds `item` to the array at `path`, or none when it is there already. */
export function jsonAddItem(
  settings: unknown,
  jsonPath: JsonPath,
  item: string,
  file: string,
): SetupChange[] {
  const current = valueAt(settings, jsonPath);
  if (current !== undefined && !Array.isArray(current)) {
    throw new SetupError(
      `${file}: ${jsonPath.join('.')} is not a list; toolmask setup adds ${JSON.stringify(item)} to it. Fix the file and run setup again`,
    );
  }
  if (current?.includes(item)) return [];
  const created = firstMissing(settings, jsonPath);
  return [
    {
      kind: 'json-add-item',
      path: jsonPath,
      item,
      arrayCreated: current === undefined,
      ...(created ? { created } : {}),
    },
  ];
}

/** jsonc-parser's edit of an array element, a leading byte order mark kept aside. */
function editArray(text: string, elementPath: JsonPath, value: unknown, insert: boolean): string {
  if (text.startsWith('\uFEFF'))
    return '\uFEFF' + editArray(text.slice(1), elementPath, value, insert);
  const edits = modify(text, elementPath, value, {
    formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' },
    isArrayInsertion: insert,
  });
  return applyEdits(text, edits);
}

/** The 0600 of a file that holds the access secret. */
const PRIVATE_MODE = 0o600;

const octal = (mode: number) => `0${mode.toString(8)}`;

function tomlScan(text: string, file: string) {
  try {
    return scanToml(text);
  } catch (error) {
    if (error instanceof TomlScanError) {
      throw new SetupError(`${file}: cannot read it as TOML (${error.message})`);
    }
    throw error;
  }
}

function tomlPair(text: string, file: string, table: string[], key: string): TomlPair | undefined {
  return tomlScan(text, file).find(
    (statement): statement is TomlPair =>
      statement.kind === 'pair' &&
      statement.key.length === 1 &&
      statement.key[0] === key &&
      statement.table.join('\0') === table.join('\0'),
  );
}

/** `text` with `change` made. */
function applyChange(text: string, change: SetupChange, file: string): string {
  switch (change.kind) {
    case 'json-set':
      return setInText(text, change.path, change.after);
    case 'json-add-item': {
      if (change.arrayCreated) return setInText(text, change.path, [change.item]);
      const length = (valueAt(parseSettings(text, file), change.path) as unknown[]).length;
      return editArray(text, [...change.path, length], change.item, true);
    }
    case 'toml-top':
      return setTopLevel(text, change.key, change.after);
    case 'toml-value': {
      const pair = tomlPair(text, file, change.table, change.key);
      if (!pair)
        throw new SetupError(`${file}: ${[...change.table, change.key].join('.')} is gone`);
      return text.slice(0, pair.valueStart) + change.after + text.slice(pair.valueEnd);
    }
    case 'toml-tables': {
      const separator = text === '' ? '' : text.endsWith('\n') ? '\n' : '\n\n';
      return text + separator + change.text;
    }
  }
}

/** What a change is, in a line for the person. */
function changeLine(file: string, change: SetupChange): string {
  switch (change.kind) {
    case 'json-set':
      return `${file}: ${change.path.join('.')} ${describe(change.before)} → ${describe(change.after)}`;
    case 'json-add-item':
      return `${file}: ${change.path.join('.')} gets ${JSON.stringify(change.item)}`;
    case 'toml-top':
      return `${file}: ${change.key} ${change.before ?? '(unset)'} → ${change.after}`;
    case 'toml-value':
      return `${file}: [${change.table.join('.')}] ${change.key} ${change.before} → ${change.after}`;
    case 'toml-tables':
      return `${file}: added ${change.names.map((name) => `[${name}]`).join(' and ')}`;
  }
}

/**
 * Makes `plan`'s changes, after recording them; refuses (SetupError) when the client is set up
 * already. Every check that can refuse has run before anything is written.
 */
export async function applyClientPlan(options: {
  client: string;
  stateDir: string;
  plan: ClientPlan;
}): Promise<string[]> {
  const { client, stateDir, plan } = options;
  const recordFile = setupRecordFile(stateDir, client);
  await refuseWhenSetUp(stateDir, client);
  const files = plan.files.filter((planned) => planned.changes.length > 0);
  const texts: string[] = [];
  for (const planned of files) {
    if (needsBackup(planned.original)) await checkBackupPath(planned.file);
    let text = planned.original?.bytes.toString('utf8') ?? '';
    for (const change of planned.changes) text = applyChange(text, change, planned.file);
    // What setup writes must read back: a JSON file as the client parses it, TOML as it scans
    // and as codex parses it.
    if (planned.format === 'json') {
      parseSettings(text, planned.file);
    } else {
      tomlScan(text, planned.file);
      const problem = tomlProblem(text);
      if (problem) {
        throw new SetupError(
          `${planned.file}: with setup's change it would not be valid TOML (${problem}); nothing was changed. Make the change yourself (docs/gateway.md shows it)`,
        );
      }
    }
    texts.push(text);
  }
  const record: ClientRecord = {
    client,
    version: 2,
    files: files.map((planned, index) => ({
      file: planned.file,
      format: planned.format,
      created: planned.original === undefined,
      digests: {
        ...(planned.original ? { before: digest(planned.original.bytes) } : {}),
        after: digest(texts[index]!),
      },
      changes: planned.changes,
      ...(planned.maxBytes !== undefined ? { maxBytes: planned.maxBytes } : {}),
      ...(planned.original ? { modeBefore: planned.original.mode } : {}),
      ...(planned.holdsAccessSecret ? { madePrivate: true } : {}),
    })),
  };
  // Remembered before anything changes, so an interrupted setup can always be undone.
  await ensurePrivateDirectory(stateDir);
  await writeAtomically(recordFile, JSON.stringify(record, null, 2) + '\n');
  const lines: string[] = [];
  const backups: string[] = [];
  for (const [index, planned] of files.entries()) {
    // The client's folder is the person's (its mode is theirs); made when missing.
    await ensureOwnDirectory(path.dirname(planned.file));
    if (needsBackup(planned.original)) {
      backups.push(await createBackup(planned.file, planned.original.bytes));
    }
    const mode = planned.holdsAccessSecret ? PRIVATE_MODE : planned.original?.mode;
    await writeSetupFile(planned.file, texts[index]!, mode);
    for (const change of planned.changes) lines.push(changeLine(planned.file, change));
    if (planned.holdsAccessSecret && planned.original && planned.original.mode !== PRIVATE_MODE) {
      lines.push(
        `${planned.file}: now 0600 (it was ${octal(planned.original.mode)}): it holds the gateway's access secret`,
      );
    }
  }
  for (const backup of backups) lines.push(`backup: ${backup}`);
  lines.push(...plan.notes);
  return lines;
}

/** `text` with `change` taken back, when it is still what setup made; a line when it is not. */
function undoChange(text: string, change: SetupChange, file: string, lines: string[]): string {
  switch (change.kind) {
    case 'json-set': {
      if (!sameJson(valueAt(parseSettings(text, file), change.path), change.after)) {
        lines.push(
          `${file}: ${change.path.join('.')} changed since setup; left as it is (before setup: ${describe(change.before)})`,
        );
        return text;
      }
      lines.push(`${file}: ${change.path.join('.')} → ${describe(change.before)}`);
      return setInText(text, change.path, change.before);
    }
    case 'json-add-item': {
      const current = valueAt(parseSettings(text, file), change.path);
      const index = Array.isArray(current) ? current.indexOf(change.item) : -1;
      if (index < 0) {
        lines.push(
          `${file}: ${change.path.join('.')} no longer has ${JSON.stringify(change.item)}`,
        );
        return text;
      }
      lines.push(`${file}: ${change.path.join('.')} without ${JSON.stringify(change.item)}`);
      if (change.arrayCreated && (current as unknown[]).length === 1) {
        return setInText(text, change.path, undefined);
      }
      return editArray(text, [...change.path, index], undefined, false);
    }
    case 'toml-top': {
      const pair = tomlPair(text, file, [], change.key);
      if (!pair || text.slice(pair.valueStart, pair.valueEnd) !== change.after) {
        lines.push(
          `${file}: ${change.key} changed since setup; left as it is (before setup: ${change.before ?? '(unset)'})`,
        );
        return text;
      }
      lines.push(`${file}: ${change.key} → ${change.before ?? '(unset)'}`);
      return change.before === undefined
        ? removeTopLevel(text, change.key)
        : text.slice(0, pair.valueStart) + change.before + text.slice(pair.valueEnd);
    }
    case 'toml-value': {
      const pair = tomlPair(text, file, change.table, change.key);
      const name = `[${change.table.join('.')}] ${change.key}`;
      if (!pair || text.slice(pair.valueStart, pair.valueEnd) !== change.after) {
        lines.push(
          `${file}: ${name} changed since setup; left as it is (before setup: ${change.before})`,
        );
        return text;
      }
      lines.push(`${file}: ${name} → ${change.before}`);
      return text.slice(0, pair.valueStart) + change.before + text.slice(pair.valueEnd);
    }
    case 'toml-tables': {
      const at = text.indexOf(change.text);
      const tables = change.names.map((name) => `[${name}]`).join(' and ');
      if (at < 0 || text.indexOf(change.text, at + 1) >= 0) {
        lines.push(`${file}: ${tables} changed since setup; left as they are (setup added them)`);
        return text;
      }
      lines.push(`${file}: ${tables} removed`);
      // The blank line setup put before them goes too.
      const start = at >= 2 && text.slice(at - 2, at) === '\n\n' ? at - 1 : at;
      return text.slice(0, start) + text.slice(at + change.text.length);
    }
  }
}

/** Takes back, in a file changed since setup, the changes setup made. */
async function undoChanges(recorded: RecordedFile, now: SetupFile, lines: string[]): Promise<void> {
  const { file } = recorded;
  let text = now.bytes.toString('utf8');
  if (recorded.format === 'json') parseSettings(text, file);
  else tomlScan(text, file);
  // A TOML file codex loads now must still load after: checked before it is written.
  const tomlBefore = recorded.format === 'toml' ? tomlProblem(text) : undefined;
  for (const change of [...recorded.changes].reverse())
    text = undoChange(text, change, file, lines);
  if (recorded.format === 'json') {
    // Objects setup created and that hold nothing now go too.
    for (const change of recorded.changes) {
      if (
        (change.kind === 'json-set' || change.kind === 'json-add-item') &&
        change.created &&
        isEmptyTree(valueAt(parseSettings(text, file), change.created))
      ) {
        text = setInText(text, change.created, undefined);
      }
    }
  } else if (tomlBefore === undefined) {
    const problem = tomlProblem(text);
    if (problem) {
      throw new SetupError(
        `${file}: without setup's changes it would not be valid TOML (${problem}); it was left as it is. Take out [mcp_servers.toolmask] (and model_provider "toolmask" with [model_providers.toolmask]) yourself`,
      );
    }
  }
  const empty =
    recorded.format === 'json' ? isEmptyTree(parseSettings(text, file)) : text.trim() === '';
  if (recorded.created && empty) {
    await fs.rm(file, { force: true });
    lines.push(`${file}: removed (setup had created it)`);
    return;
  }
  await writeSetupFile(file, text, now.mode);
  if (
    recorded.madePrivate &&
    recorded.modeBefore !== undefined &&
    recorded.modeBefore !== now.mode
  ) {
    // Edited since: it may hold more than setup put there, so setup does not widen who reads it.
    lines.push(
      `${file}: left ${octal(now.mode)} (it was ${octal(recorded.modeBefore)} before setup; edited since, it may hold what you would not share)`,
    );
  }
}

/** What `--undo` did, and the files it could not put back (each with why). */
export interface UndoReport {
  lines: string[];
  /** One line per file left as it is, naming it; empty when every file was put back. */
  failures: string[];
}

/** Puts back one recorded file; throws, naming it and why, when it cannot. */
async function undoFile(recorded: RecordedFile, lines: string[]): Promise<void> {
  const { file } = recorded;
  const now = await readSetupFile(file, recorded.maxBytes);
  if (now === undefined) {
    lines.push(`${file}: no longer there; nothing to put back`);
    return;
  }
  const options = {
    ...(recorded.maxBytes !== undefined ? { maxBytes: recorded.maxBytes } : {}),
    ...(recorded.modeBefore !== undefined ? { modeBefore: recorded.modeBefore } : {}),
  };
  if (await putBackExactly(file, now, recorded.digests, lines, options)) return;
  await undoChanges(recorded, now, lines);
  await removeSpentBackup(file, recorded.digests, lines, recorded.maxBytes);
}

/**
 * Puts back every recorded file it can. A file it cannot is reported and kept in the record (the
 * record goes when none is left), so that `--undo` can be run again once it is fixed.
 */
export async function undoClientPlan(options: {
  client: string;
  stateDir: string;
}): Promise<UndoReport> {
  const recordFile = setupRecordFile(options.stateDir, options.client);
  const recordText = await readIfExists(recordFile);
  if (recordText === undefined) {
    throw new SetupError(`toolmask is not set up for ${options.client} (nothing to undo)`);
  }
  const record = JSON.parse(recordText) as ClientRecord;
  if (record.version !== 2 || !Array.isArray(record.files)) {
    throw new SetupError(`${recordFile}: not a record this toolmask can undo`);
  }
  const lines: string[] = [];
  const failures: string[] = [];
  const left: RecordedFile[] = [];
  for (const recorded of record.files) {
    try {
      await undoFile(recorded, lines);
    } catch (error) {
      const why = describeError(error);
      failures.push(why.includes(recorded.file) ? why : `${recorded.file}: ${why}`);
      left.push(recorded);
    }
  }
  if (left.length === 0) {
    await fs.rm(recordFile, { force: true });
  } else {
    await writeAtomically(recordFile, JSON.stringify({ ...record, files: left }, null, 2) + '\n');
  }
  return { lines, failures };
}
