/**
 * The record of a setup, `<state>/setup-<client>.json`: written before setup changes anything,
 * so that an interrupted setup can always be undone, and read by `--undo`. Per file: what setup
 * found (its digest, its mode, whether it existed), each change with what was there before, and
 * what it wrote (its digest); toolmask's own files to remove; whether `--undo` takes the files
 * back all together. A record of `toolmask setup gemini|qwen` from before they used this engine
 * (its settings file and `.env` in fields of their own, no version) is read as one of these.
 */
import * as path from 'node:path';
import { readIfExists, writeAtomically } from '@toolmask/core/files';
import type { SetupChange } from './setup-changes.js';
import type { EnvChange } from './env-changes.js';
import type { JsonChange } from './json-changes.js';
import { NothingToUndoError, SetupError, type FileDigests } from './setup-files.js';
import type { SetupFormat } from './setup-plan.js';

export interface RecordedFile {
  file: string;
  format: SetupFormat;
  /** There was no such file before setup. */
  created: boolean;
  /** Absent only in the record of a gemini or qwen setup from before byte-exact `--undo`. */
  digests?: FileDigests;
  changes: SetupChange[];
  /** The bound of its reads, when not 1 MB. */
  maxBytes?: number;
  /** Its permission bits before setup (absent: setup created it). */
  modeBefore?: number;
  /** Setup made it 0600 (it holds the access secret). */
  madePrivate?: boolean;
}

/** `<state>/setup-<client>.json`. */
export interface ClientRecord {
  client: string;
  version: 2;
  files: RecordedFile[];
  /** toolmask's own files the setup wrote (removed once every file is put back). */
  ownFiles?: string[];
  /** `--undo` puts back every file or none (setup-plan.ts `undoAsOne`). */
  undoAsOne?: boolean;
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

/** The record of `client`'s setup; a SetupError when there is none, or none this toolmask reads. */
export async function readSetupRecord(stateDir: string, client: string): Promise<ClientRecord> {
  const file = setupRecordFile(stateDir, client);
  const text = await readIfExists(file);
  if (text === undefined) {
    throw new NothingToUndoError(`toolmask is not set up for ${client} (nothing to undo)`);
  }
  const record = JSON.parse(text) as Partial<ClientRecord> | null;
  const read = record?.version === undefined ? readFirstRecord(record) : record;
  if (read?.version !== 2 || !Array.isArray(read.files)) {
    throw new SetupError(`${file}: not a record this toolmask can undo`);
  }
  return read as ClientRecord;
}

/** The record `toolmask setup gemini|qwen` kept before they used this engine. */
interface FirstRecord {
  client: string;
  settingsFile: string;
  settingsFileCreated?: boolean;
  envFile: string;
  settings: Array<Omit<Extract<JsonChange, { kind: 'json-set' }>, 'kind'>>;
  env: Array<Omit<EnvChange, 'kind'>>;
  experimentsFile?: string;
  /** Absent in a record of a setup before byte-exact --undo: values are put back one by one. */
  digests?: { settings: FileDigests; env: FileDigests };
  settingsModeBefore?: number;
}

/**
 * A first record as one of this engine, undone as it was then: both files or neither, the
 * settings file's mode from before setup, the `.env`'s as it is now.
 */
function readFirstRecord(record: Partial<FirstRecord> | null): ClientRecord | undefined {
  if (typeof record?.settingsFile !== 'string' || typeof record.envFile !== 'string') {
    return undefined;
  }
  const first = record as FirstRecord;
  const envCreated = first.digests
    ? first.digests.env.before === undefined
    : !first.env.some((change) => change.before !== undefined);
  return {
    client: first.client,
    version: 2,
    undoAsOne: true,
    ...(first.experimentsFile ? { ownFiles: [first.experimentsFile] } : {}),
    files: [
      {
        file: first.settingsFile,
        format: 'json',
        created: first.settingsFileCreated === true,
        ...(first.digests ? { digests: first.digests.settings } : {}),
        changes: first.settings.map((change) => ({ kind: 'json-set', ...change })),
        ...(first.settingsModeBefore !== undefined ? { modeBefore: first.settingsModeBefore } : {}),
      },
      {
        file: first.envFile,
        format: 'env',
        created: envCreated,
        ...(first.digests ? { digests: first.digests.env } : {}),
        changes: first.env.map((change) => ({ kind: 'env-set', ...change })),
      },
    ],
  };
}

/** Writes the record (atomically: a record is whole or absent). */
export async function writeSetupRecord(stateDir: string, record: ClientRecord): Promise<void> {
  await writeAtomically(
    setupRecordFile(stateDir, record.client),
    JSON.stringify(record, null, 2) + '\n',
  );
}
