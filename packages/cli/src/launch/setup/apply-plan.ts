/**
 * Carries out a client's setup plan (setup-plan.ts), with the guarantees every client's setup
 * keeps:
 *
 * - Every check that can refuse has run before anything is written: the client is not set up
 *   already, each backup path is free or an earlier backup, each file's new text reads back as its
 *   client reads it (JSON as the client parses it; TOML as the scanner follows it and as codex
 *   parses it).
 * - Each change is recorded with what was there before, in `<state>/setup-<client>.json`
 *   (setup-record.ts), before anything is written, with a SHA-256 digest of each file before and
 *   after, so that an interrupted setup can always be undone.
 * - A file with something in it is copied first to `<file>.toolmask-backup` (setup-files.ts:
 *   created `O_EXCL | O_NOFOLLOW`, 0600); the files are read and replaced as that module says
 *   (regular files of at most 1 MB unless the plan gives a file a larger bound, never through a
 *   link, a FIFO never opened for long).
 * - A file that gets the gateway's access secret (`holdsAccessSecret`) is left 0600, whatever its
 *   mode was: the secret opens the person's stored tool outputs. Its mode before is recorded.
 *
 * `--undo` (undo-plan.ts) takes it back.
 */
import * as path from 'node:path';
import { ensurePrivateDirectory, writeAtomically } from '@toolmask/core/files';
import { parseSettings } from '../files/jsonc-settings.js';
import { ensureOwnDirectory } from '../files/person-files.js';
import { applyChange, changeLine } from './setup-changes.js';
import {
  checkBackupPath,
  createBackup,
  digest,
  writeSetupFile,
  type SetupFile,
} from './setup-files.js';
import type { ClientPlan, PlannedFile } from './setup-plan.js';
import { refuseWhenSetUp, writeSetupRecord, type ClientRecord } from './setup-record.js';
import { checkWrittenToml } from './toml-changes.js';

/** The 0600 of a file that holds the access secret. */
export const PRIVATE_MODE = 0o600;

export const octal = (mode: number) => `0${mode.toString(8)}`;

/** A file with something in it has a backup (an empty one is put back without). */
export const needsBackup = (file: SetupFile | undefined): file is SetupFile =>
  file !== undefined && file.bytes.length > 0;

/** `planned`'s text with its changes made, checked to read back as its client reads it. */
async function plannedText(planned: PlannedFile): Promise<string> {
  if (needsBackup(planned.original)) await checkBackupPath(planned.file);
  let text = planned.original?.bytes.toString('utf8') ?? '';
  for (const change of planned.changes) text = applyChange(text, change, planned.file);
  if (planned.format === 'json') parseSettings(text, planned.file);
  if (planned.format === 'toml') checkWrittenToml(text, planned.file);
  return text;
}

function recordOf(
  client: string,
  plan: ClientPlan,
  files: readonly PlannedFile[],
  texts: readonly string[],
): ClientRecord {
  const ownFiles = (plan.ownFiles ?? []).map((own) => own.file);
  return {
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
    ...(ownFiles.length > 0 ? { ownFiles } : {}),
    ...(plan.undoAsOne ? { undoAsOne: true } : {}),
  };
}

/** Writes one planned file (after its backup); the lines that say what changed. */
async function writePlannedFile(planned: PlannedFile, text: string): Promise<string | undefined> {
  // The client's folder is the person's (its mode is theirs); made when missing.
  await ensureOwnDirectory(path.dirname(planned.file));
  const backup = needsBackup(planned.original)
    ? await createBackup(planned.file, planned.original.bytes)
    : undefined;
  const mode = planned.holdsAccessSecret ? PRIVATE_MODE : planned.original?.mode;
  await writeSetupFile(planned.file, text, mode);
  return backup;
}

/**
 * Makes `plan`'s changes, after recording them; refuses (SetupError) when the client is set up
 * already. Every check that can refuse has run before anything is written. Returns the lines for
 * the person: the plan's preface, each change, each backup, then the plan's notes.
 */
export async function applyClientPlan(options: {
  client: string;
  stateDir: string;
  plan: ClientPlan;
}): Promise<string[]> {
  const { client, stateDir, plan } = options;
  await refuseWhenSetUp(stateDir, client);
  const files = plan.files.filter((planned) => planned.changes.length > 0);
  const texts: string[] = [];
  for (const planned of files) texts.push(await plannedText(planned));
  // Remembered before anything changes, so an interrupted setup can always be undone.
  await ensurePrivateDirectory(stateDir);
  await writeSetupRecord(stateDir, recordOf(client, plan, files, texts));
  for (const own of plan.ownFiles ?? []) await writeAtomically(own.file, own.text);
  const lines = [...(plan.preface ?? [])];
  const backups: string[] = [];
  for (const [index, planned] of files.entries()) {
    const backup = await writePlannedFile(planned, texts[index]!);
    if (backup) backups.push(backup);
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
