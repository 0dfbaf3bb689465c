/**
 * The reader of OpenCode's database on a fixture made from what the real opencode 1.18.33 wrote
 * against a scripted fake (two bash calls, then the final text; the run of
 * test-support's record-real-sessions.ts): its `session`, `message` and `part` tables only, paths
 * anonymised, page size 512. As OpenCode leaves it, part of it is in the write-ahead log: the
 * prompt and first answer in the main file, the two later answers in two transactions of the
 * log (written there by SQLite and copied before the connection closed).
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import initSqlJs from 'sql.js';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from './input-error.js';
import { loadInputs } from './load-inputs.js';
import { loadSessionFile } from './load-session-file.js';
import { openOpencodeDatabase } from './opencode-database.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const SESSION_ID = 'ses_dcd590672ffeSBauBzCLuBGExZ';
const DATABASE = path.join(here, 'test-data/opencode', `${SESSION_ID}.db`);

const scratch: string[] = [];
afterEach(async () => {
  for (const folder of scratch.splice(0)) await fs.rm(folder, { recursive: true, force: true });
});

/** A copy of the fixture in a fresh folder, its log as `wal` makes it (undefined: none). */
async function copyFixture(wal: (bytes: Buffer) => Buffer | undefined): Promise<string> {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-opencode-db-'));
  scratch.push(folder);
  const file = path.join(folder, 'opencode.db');
  await fs.copyFile(DATABASE, file);
  const log = wal(await fs.readFile(`${DATABASE}-wal`));
  if (log) await fs.writeFile(`${file}-wal`, log);
  return file;
}

const roles = (contents: readonly { role?: string }[]) => contents.map((content) => content.role);

describe('OpenCode database', () => {
  it('reads every session: answers, results, usage and times, with the write-ahead log', async () => {
    const before = await fs.readFile(`${DATABASE}-wal`);
    const [task, ...rest] = await loadSessionFile(DATABASE);
    expect(rest).toHaveLength(0);
    expect(task).toMatchObject({
      file: DATABASE,
      label: SESSION_ID,
      format: 'opencode',
      provider: 'openai',
      startedAt: 1_796_146_133_390,
      updatedAt: 1_796_146_135_490,
    });
    expect(roles(task!.contents)).toEqual(['user', 'model', 'user', 'model', 'user', 'model']);
    expect(task!.contents[1]!.parts![0]!.functionCall).toEqual({
      id: 'call_0',
      name: 'bash',
      args: { command: 'seq 1 5', description: 'step 0' },
    });
    expect(task!.contents[4]!.parts![0]!.functionResponse).toEqual({
      id: 'call_1',
      name: 'bash',
      response: { output: 'hello\n' },
    });
    expect(task!.contents[5]!.parts).toEqual([{ text: 'All done: the numbers are printed.' }]);
    expect(task!.recordedUsage?.filter(Boolean)).toEqual([
      { promptTokens: 2_443, cachedTokens: 0, cacheWriteTokens: 0 },
      { promptTokens: 2_504, cachedTokens: 2_443, cacheWriteTokens: 0 },
      { promptTokens: 2_564, cachedTokens: 2_504, cacheWriteTokens: 0 },
    ]);
    // Read-only: the log is as it was, and no `-shm` was made beside it.
    expect((await fs.readFile(`${DATABASE}-wal`)).equals(before)).toBe(true);
    await expect(fs.stat(`${DATABASE}-shm`)).rejects.toThrow();
  });

  it('without the log, has only what the main file holds', async () => {
    const [task] = await loadSessionFile(await copyFixture(() => undefined));
    expect(roles(task!.contents)).toEqual(['user', 'model', 'user']);
  });

  it('applies only whole transactions of a log cut off while it was written', async () => {
    const file = await copyFixture((wal) => wal.subarray(0, wal.byteLength - 100));
    const database = await openOpencodeDatabase(file);
    try {
      expect(database.walTransactions).toBe(1);
    } finally {
      database.close();
    }
    const [task] = await loadSessionFile(file);
    expect(roles(task!.contents)).toEqual(['user', 'model', 'user', 'model', 'user']);
  });

  it('ignores a log whose header checksum does not match, as SQLite does', async () => {
    const file = await copyFixture((wal) => {
      const damaged = Buffer.from(wal);
      damaged[24]! ^= 0xff;
      return damaged;
    });
    const [task] = await loadSessionFile(file);
    expect(roles(task!.contents)).toEqual(['user', 'model', 'user']);
  });

  it('is found in a folder, and counts as recent when only its log was written lately', async () => {
    const file = await copyFixture((wal) => wal);
    const day = 24 * 60 * 60 * 1000;
    const now = Date.now();
    await fs.utimes(file, new Date(now - 40 * day), new Date(now - 40 * day));
    const loaded = await loadInputs([path.dirname(file)], { modifiedSince: now - 30 * day });
    expect(loaded.older).toBe(0);
    expect(loaded.tasks.map((task) => [task.file, task.label])).toEqual([[file, SESSION_ID]]);
    await fs.utimes(`${file}-wal`, new Date(now - 40 * day), new Date(now - 40 * day));
    expect((await loadInputs([path.dirname(file)], { modifiedSince: now - 30 * day })).older).toBe(
      1,
    );
  });

  it('refuses a database above the size limit, naming it and `opencode export`', async () => {
    const error = await openOpencodeDatabase(DATABASE, { maxBytes: 10_000 }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toBe(
      `${DATABASE}: an OpenCode database of 18 KB with its write-ahead log, more than the 10 KB replay reads into memory: export a session with \`opencode export SESSION_ID > session.json\` (ids: \`opencode session list\`) and replay that file`,
    );
  });

  it('says an SQLite database of another program is not a session', async () => {
    const SQL = await initSqlJs();
    const other = new SQL.Database();
    other.run('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)');
    const file = await copyFixture(() => undefined);
    await fs.writeFile(file, other.export());
    other.close();
    const error = await loadSessionFile(file).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).kind).toBe('not-a-session');
    expect((error as InputError).reason).toBe(
      "not a session: an SQLite database without OpenCode's tables (session, message, part missing)",
    );
  });

  it('names the file when an SQLite header is followed by no database', async () => {
    const file = await copyFixture(() => undefined);
    await fs.writeFile(file, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(600)]));
    const error = await loadSessionFile(file).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toMatch(
      new RegExp(
        `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not a readable SQLite database \\(`,
      ),
    );
  });
});
