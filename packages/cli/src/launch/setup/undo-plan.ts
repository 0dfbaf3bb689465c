/**
 * `toolmask setup <client> --undo`: takes back what apply-plan.ts did, from the record.
 *
 * - A file that is still as setup left it is put back byte for byte (its backup's bytes and its
 *   mode from before, or no file when setup created it), and the backup removed.
 * - In a file changed since (by the person, or by the client itself: claude rewrites
 *   `~/.claude.json`, opencode adds `$schema`), only setup's own changes are taken back, each only
 *   when it is still what setup wrote; the lines say which were left. The backup is removed when
 *   it still holds the file as setup found it; such a file stays 0600 when setup made it so.
 * - Each file is undone on its own: one that cannot be (a link, a FIFO, a file too large, text it
 *   cannot follow) is reported with why, the others are undone, and the record keeps only the
 *   ones left, for another `--undo`. A plan made `undoAsOne` (gemini's settings and `.env`) is
 *   undone whole or not at all: every file is read first, and the first that cannot be put back
 *   stops `--undo` (a SetupError) before anything is written, the record kept whole.
 * - toolmask's own files of the setup go with the record, once no file is left.
 */
import { promises as fs } from 'node:fs';
import { describeError } from '@toolmask/core/errors';
import { parseSettings } from '../files/jsonc-settings.js';
import { octal } from './apply-plan.js';
import { isEmptyTree, withoutEmptyCreated } from './json-changes.js';
import { jsonChanges, undoChange } from './setup-changes.js';
import {
  putBackExactly,
  readSetupFile,
  removeSpentBackup,
  writeSetupFile,
  type SetupFile,
} from './setup-files.js';
import {
  readSetupRecord,
  setupRecordFile,
  writeSetupRecord,
  type RecordedFile,
} from './setup-record.js';
import { checkUndoneToml, tomlStatements } from './toml-changes.js';
import { tomlProblem } from '../files/toml-text.js';

/** What `--undo` did, and the files it could not put back (each with why). */
export interface UndoReport {
  lines: string[];
  /** One line per file left as it is, naming it; empty when every file was put back. */
  failures: string[];
}

/** Whether a file setup created holds nothing of anyone's now (then it goes). */
function isEmpty(recorded: RecordedFile, text: string): boolean {
  if (recorded.format === 'json') return isEmptyTree(parseSettings(text, recorded.file));
  return recorded.format === 'toml' ? text.trim() === '' : text === '';
}

/** `now`'s text with setup's changes taken back, checked as its client would read it. */
function textWithoutChanges(recorded: RecordedFile, now: SetupFile, lines: string[]): string {
  const { file, format } = recorded;
  let text = now.bytes.toString('utf8');
  if (format === 'json') parseSettings(text, file);
  if (format === 'toml') tomlStatements(text, file);
  // A TOML file codex loads now must still load after: checked before it is written.
  const loadedBefore = format === 'toml' && tomlProblem(text) === undefined;
  for (const change of [...recorded.changes].reverse()) {
    text = undoChange(text, change, file, lines);
  }
  if (format === 'json') text = withoutEmptyCreated(text, jsonChanges(recorded.changes), file);
  if (loadedBefore) checkUndoneToml(text, file);
  return text;
}

/** Takes back, in a file changed since setup, the changes setup made. */
async function undoChanges(recorded: RecordedFile, now: SetupFile, lines: string[]): Promise<void> {
  const { file } = recorded;
  const text = textWithoutChanges(recorded, now, lines);
  if (recorded.created && isEmpty(recorded, text)) {
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

/** Puts back one recorded file, as it is now (`now`); throws, naming it and why, when it cannot. */
async function undoFile(
  recorded: RecordedFile,
  now: SetupFile | undefined,
  lines: string[],
): Promise<void> {
  const { file } = recorded;
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

/** Undoes each file on its own; the ones it could not are returned, each with a line why. */
async function undoEachFile(
  files: readonly RecordedFile[],
  lines: string[],
): Promise<{ left: RecordedFile[]; failures: string[] }> {
  const left: RecordedFile[] = [];
  const failures: string[] = [];
  for (const recorded of files) {
    try {
      await undoFile(recorded, await readSetupFile(recorded.file, recorded.maxBytes), lines);
    } catch (error) {
      const why = describeError(error);
      failures.push(why.includes(recorded.file) ? why : `${recorded.file}: ${why}`);
      left.push(recorded);
    }
  }
  return { left, failures };
}

/** Undoes every file, or (the first that cannot be read throws) none. */
async function undoAllFiles(files: readonly RecordedFile[], lines: string[]): Promise<void> {
  // Everything that can refuse is read before anything is written.
  const now: Array<SetupFile | undefined> = [];
  for (const recorded of files) now.push(await readSetupFile(recorded.file, recorded.maxBytes));
  for (const [index, recorded] of files.entries()) await undoFile(recorded, now[index], lines);
}

/**
 * Puts back every recorded file it can (all or none for an `undoAsOne` record). A file it cannot
 * is reported and kept in the record (the record goes when none is left), so that `--undo` can be
 * run again once it is fixed.
 */
export async function undoClientPlan(options: {
  client: string;
  stateDir: string;
}): Promise<UndoReport> {
  const { client, stateDir } = options;
  const record = await readSetupRecord(stateDir, client);
  const lines: string[] = [];
  let result = { left: [] as RecordedFile[], failures: [] as string[] };
  if (record.undoAsOne) await undoAllFiles(record.files, lines);
  else result = await undoEachFile(record.files, lines);
  if (result.left.length > 0) {
    await writeSetupRecord(stateDir, { ...record, files: result.left });
    return { lines, failures: result.failures };
  }
  for (const own of record.ownFiles ?? []) await fs.rm(own, { force: true });
  await fs.rm(setupRecordFile(stateDir, client), { force: true });
  return { lines, failures: [] };
}
