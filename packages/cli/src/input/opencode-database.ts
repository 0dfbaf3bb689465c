/**
 * OpenCode's own database (`~/.local/share/opencode/opencode.db`, opencode 1.18.33), read with
 * sql.js (SQLite compiled to WebAssembly: Node 20 has no SQLite of its own). Each session comes
 * out in the shape `opencode export` prints, `{ info, messages: [{ info, parts }] }`, so that one
 * converter (opencode-session.ts) reads both.
 *
 * - Read-only: the file's bytes are loaded into memory and opened there; nothing is written, no
 *   lock is taken, OpenCode may keep running. The write-ahead log beside it (`opencode.db-wal`,
 *   where OpenCode's latest writes are, often all of them: it does not checkpoint on exit) is
 *   folded in (opencode-wal.ts); a log that changed while it was read (OpenCode started a new
 *   one) is refused, to be read again.
 * - Bounded: a database above `maxBytes` (with its log) is refused before it is read, naming the
 *   limit and `opencode export`, which reads one session at a time.
 * - Tables `session` (columns), `message` and `part` (their JSON in `data`, ids in columns);
 *   messages in the order of their time, then id, parts in id order (as OpenCode reads them).
 */
import { promises as fs } from 'node:fs';
import { isPlainObject } from '@toolmask/core/utils';
import { loadOptionalPackage } from '@toolmask/core/errors';
import type { Database, SqlJsStatic, SqlValue } from 'sql.js';
import { InputError } from './input-error.js';
import type { OpencodeSession } from './opencode-session.js';
import { WalError, applyWal } from './opencode-wal.js';

/** The largest database (with its write-ahead log) read into memory: 512 MiB. */
export const MAX_OPENCODE_DATABASE_BYTES = 512 * 1024 * 1024;

/** What to do instead, for a database this cannot read whole. */
export const OPENCODE_EXPORT_HINT =
  'export a session with `opencode export SESSION_ID > session.json` (ids: `opencode session list`) and replay that file';

const WAL_HEADER_BYTES = 32;

export interface OpenOpencodeDatabaseOptions {
  /** Refuse a database larger than this, log included. @default MAX_OPENCODE_DATABASE_BYTES */
  maxBytes?: number;
}

export interface OpencodeDatabase {
  /** Sessions, oldest first, one at a time (each converted before the next is read). */
  sessions(): Generator<OpencodeSession>;
  /** Transactions taken from the write-ahead log (0 without one). */
  readonly walTransactions: number;
  close(): void;
}

let sqlJs: Promise<SqlJsStatic> | undefined;

/**
 * sql.js, loaded on first use (its WebAssembly is read from the package, never fetched). An
 * optional peer dependency: only OpenCode's database needs it (a `MissingPackageError` naming it).
 */
function loadSqlJs(): Promise<SqlJsStatic> {
  sqlJs ??= loadOptionalPackage(
    { name: 'sql.js', version: '1.17.0' },
    "reading OpenCode's database",
    () => import('sql.js'),
  ).then((module) => module.default());
  return sqlJs;
}

/** A size as a person reads it: MB, or KB below one. */
function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${Math.ceil(bytes / (1024 * 1024))} MB`
    : `${Math.ceil(bytes / 1024)} KB`;
}

async function sizeOf(file: string): Promise<number | undefined> {
  try {
    return (await fs.stat(file)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** A file's bytes, or undefined when it is gone (a log SQLite removed after a checkpoint). */
async function readIfPresent(file: string): Promise<Buffer | undefined> {
  try {
    return await fs.readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function readWalHeader(wal: string): Promise<Buffer | undefined> {
  const handle = await fs.open(wal, 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!handle) return undefined;
  try {
    const header = Buffer.alloc(WAL_HEADER_BYTES);
    const { bytesRead } = await handle.read(header, 0, WAL_HEADER_BYTES, 0);
    return header.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The database's bytes with its log applied, checked against the size limit. */
async function readBytes(file: string, maxBytes: number) {
  const wal = `${file}-wal`;
  const size = (await sizeOf(file)) ?? 0;
  const walSize = (await sizeOf(wal)) ?? 0;
  if (size + walSize > maxBytes) {
    const what =
      walSize > 0 ? `${sizeText(size + walSize)} with its write-ahead log` : sizeText(size);
    throw new InputError(
      file,
      `an OpenCode database of ${what}, more than the ${sizeText(maxBytes)} replay reads into memory: ${OPENCODE_EXPORT_HINT}`,
    );
  }
  // The log first: a checkpoint while the database is read only copies into it pages the log
  // still holds. A new log (other salts) means pages were copied that this log no longer has.
  const walBytes = walSize > 0 ? await readIfPresent(wal) : undefined;
  const databaseBytes = await fs.readFile(file);
  if (walBytes && walBytes.byteLength >= WAL_HEADER_BYTES) {
    const header = await readWalHeader(wal);
    if (!header || !header.equals(walBytes.subarray(0, WAL_HEADER_BYTES))) {
      throw new InputError(
        file,
        'OpenCode wrote to the database while it was read (it started a new write-ahead log): run the command again, or close OpenCode first',
      );
    }
  }
  try {
    return applyWal(databaseBytes, walBytes ?? new Uint8Array());
  } catch (error) {
    if (error instanceof WalError) throw new InputError(file, `${wal}: ${error.message}`);
    throw error;
  }
}

function parseRow(
  file: string,
  table: string,
  id: SqlValue,
  data: SqlValue,
): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(String(data));
    if (isPlainObject(value)) return value;
  } catch {
    // reported below
  }
  throw new InputError(file, `${table} ${String(id)}: its data is not a JSON object`);
}

function* rows(database: Database, sql: string, values: SqlValue[] = []): Generator<SqlValue[]> {
  const statement = database.prepare(sql);
  try {
    statement.bind(values);
    while (statement.step()) yield statement.get();
  } finally {
    statement.free();
  }
}

function jsonColumn(value: SqlValue): unknown {
  if (typeof value !== 'string') return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

function readSession(file: string, database: Database, row: SqlValue[]): OpencodeSession {
  const [id, model, created, updated] = row;
  const sessionID = String(id);
  const messages: OpencodeSession['messages'] = [];
  const byId = new Map<string, OpencodeSession['messages'][number]>();
  for (const [messageId, data] of rows(
    database,
    'SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id',
    [sessionID],
  )) {
    const info = { ...parseRow(file, 'message', messageId!, data!), id: messageId, sessionID };
    const message = { info, parts: [] as unknown[] };
    messages.push(message);
    byId.set(String(messageId), message);
  }
  for (const [partId, messageId, data] of rows(
    database,
    'SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id',
    [sessionID],
  )) {
    const part = parseRow(file, 'part', partId!, data!);
    byId
      .get(String(messageId))
      ?.parts.push({ ...part, id: partId, sessionID, messageID: messageId });
  }
  const info: Record<string, unknown> = { id: sessionID, time: { created, updated } };
  const parsedModel = jsonColumn(model!);
  if (isPlainObject(parsedModel)) info['model'] = parsedModel;
  return { info, messages };
}

/** Opens an OpenCode database from its bytes (the caller has seen SQLite's header). */
export async function openOpencodeDatabase(
  file: string,
  options: OpenOpencodeDatabaseOptions = {},
): Promise<OpencodeDatabase> {
  const { database: bytes, transactions } = await readBytes(
    file,
    options.maxBytes ?? MAX_OPENCODE_DATABASE_BYTES,
  );
  const SQL = await loadSqlJs();
  let database: Database;
  try {
    database = new SQL.Database(bytes);
    const tables = new Set(
      [...rows(database, "SELECT name FROM sqlite_master WHERE type = 'table'")].map(([name]) =>
        String(name),
      ),
    );
    const missing = ['session', 'message', 'part'].filter((table) => !tables.has(table));
    if (missing.length > 0) {
      database.close();
      throw new InputError(
        file,
        `not a session: an SQLite database without OpenCode's tables (${missing.join(', ')} missing)`,
        'not-a-session',
      );
    }
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(file, `not a readable SQLite database (${sqlMessage(error)})`);
  }
  const open = database;
  return {
    walTransactions: transactions,
    *sessions() {
      try {
        for (const row of rows(
          open,
          'SELECT id, model, time_created, time_updated FROM session ORDER BY time_created, id',
        )) {
          yield readSession(file, open, row);
        }
      } catch (error) {
        if (error instanceof InputError) throw error;
        throw new InputError(file, `cannot be read as OpenCode's database (${sqlMessage(error)})`);
      }
    },
    close: () => open.close(),
  };
}

/** sql.js throws SQLite's errors as `Error`s, and a few of its own as strings. */
function sqlMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
