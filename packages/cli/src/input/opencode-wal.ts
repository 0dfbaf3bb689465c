/**
 * Folds SQLite's write-ahead log (the `-wal` file beside a database in WAL mode) into the
 * database's bytes, so that a reader that sees only one file (sql.js) sees what SQLite would.
 * OpenCode keeps its database in WAL mode and does not checkpoint when it exits: after
 * `opencode run`, `opencode.db` can be a 4 KB header page with every session in the log.
 *
 * What is applied, per the WAL format of sqlite.org/fileformat2.html: the 32-byte header (magic,
 * page size, salts, a checksum of its first 24 bytes), then frames of a 24-byte header (page
 * number; for the last frame of a transaction, the database size in pages after it; the salts;
 * a running checksum) and one page. Frames count up to the first whose salts or checksum do not
 * match (a log written over from its start, or cut off while appended); of those, only
 * committed transactions are applied, in order, the later copy of a page winning. This is what
 * SQLite itself recovers from a log when it opens one. No file is touched: bytes in, bytes out.
 */
import { ToolmaskError } from '@toolmask/core/errors';

const HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;
/** The magic number of a log whose checksums read words little-endian (big-endian: +1). */
const MAGIC_LITTLE_ENDIAN = 0x377f0682;
const MAGIC_BIG_ENDIAN = 0x377f0683;
/** Offsets 18 and 19 of a database header: 2 (WAL mode) or 1 (the rollback journal). */
const FORMAT_VERSION_OFFSETS = [18, 19] as const;

/**
 * A log that cannot be applied (the reader reports it with the database's name). Code
 * `INVALID_WAL`.
 */
export class WalError extends ToolmaskError<'INVALID_WAL'> {
  constructor(message: string) {
    super('INVALID_WAL', message);
  }
}

export interface AppliedWal {
  /** The database with the committed transactions of the log in it. */
  database: Uint8Array;
  /** Committed transactions applied (0: the log had none, or none valid). */
  transactions: number;
}

/** SQLite's WAL checksum over `data` (a multiple of 8 bytes), continuing from `seed`. */
function checksum(
  data: DataView,
  offset: number,
  length: number,
  littleEndian: boolean,
  seed: readonly [number, number],
): [number, number] {
  let [first, second] = seed;
  for (let at = offset; at < offset + length; at += 8) {
    first = (first + data.getUint32(at, littleEndian) + second) >>> 0;
    second = (second + data.getUint32(at + 4, littleEndian) + first) >>> 0;
  }
  return [first, second];
}

/**
 * `database` with the committed frames of `wal` applied, marked as an ordinary (rollback
 * journal) database so that it opens without a log. An empty or headerless log leaves the
 * database as it is; a log with another page size is a `WalError`.
 */
export function applyWal(database: Uint8Array, wal: Uint8Array): AppliedWal {
  if (wal.byteLength < HEADER_BYTES)
    return { database: asRollbackJournal(database), transactions: 0 };
  const view = new DataView(wal.buffer, wal.byteOffset, wal.byteLength);
  const magic = view.getUint32(0);
  if (magic !== MAGIC_LITTLE_ENDIAN && magic !== MAGIC_BIG_ENDIAN) {
    throw new WalError('not a SQLite write-ahead log (wrong magic number)');
  }
  const littleEndian = magic === MAGIC_LITTLE_ENDIAN;
  const pageSize = view.getUint32(8);
  if (pageSize < 512 || pageSize > 65_536 || (pageSize & (pageSize - 1)) !== 0) {
    throw new WalError(`the write-ahead log has an invalid page size (${pageSize})`);
  }
  const databasePageSize = pageSizeOf(database);
  if (databasePageSize !== undefined && databasePageSize !== pageSize) {
    throw new WalError(
      `the write-ahead log's page size (${pageSize}) is not the database's (${databasePageSize})`,
    );
  }
  const salts = [view.getUint32(16), view.getUint32(20)];
  let sum = checksum(view, 0, 24, littleEndian, [0, 0]);
  if (sum[0] !== view.getUint32(24) || sum[1] !== view.getUint32(28)) {
    // SQLite ignores such a log: the database file alone is what was committed.
    return { database: asRollbackJournal(database), transactions: 0 };
  }

  /** Page number to the offset of its latest committed copy in the log. */
  const committed = new Map<number, number>();
  let pending = new Map<number, number>();
  let pages = databasePageSize === undefined ? 0 : Math.floor(database.byteLength / pageSize);
  let transactions = 0;
  const frameBytes = FRAME_HEADER_BYTES + pageSize;
  for (let at = HEADER_BYTES; at + frameBytes <= wal.byteLength; at += frameBytes) {
    if (view.getUint32(at + 8) !== salts[0] || view.getUint32(at + 12) !== salts[1]) break;
    sum = checksum(view, at, 8, littleEndian, sum);
    sum = checksum(view, at + FRAME_HEADER_BYTES, pageSize, littleEndian, sum);
    if (sum[0] !== view.getUint32(at + 16) || sum[1] !== view.getUint32(at + 20)) break;
    const page = view.getUint32(at);
    if (page === 0) break;
    pending.set(page, at + FRAME_HEADER_BYTES);
    const sizeAfterCommit = view.getUint32(at + 4);
    if (sizeAfterCommit > 0) {
      for (const [pageNumber, offset] of pending) committed.set(pageNumber, offset);
      pending = new Map();
      pages = sizeAfterCommit;
      transactions++;
    }
  }
  if (transactions === 0) return { database: asRollbackJournal(database), transactions: 0 };

  const result = new Uint8Array(pages * pageSize);
  result.set(database.subarray(0, Math.min(database.byteLength, result.byteLength)));
  for (const [page, offset] of committed) {
    if (page > pages) continue;
    result.set(wal.subarray(offset, offset + pageSize), (page - 1) * pageSize);
  }
  for (const offset of FORMAT_VERSION_OFFSETS) result[offset] = 1;
  return { database: result, transactions };
}

/** The page size a database header states, or undefined for a file without one. */
function pageSizeOf(database: Uint8Array): number | undefined {
  if (database.byteLength < 100) return undefined;
  const size = (database[16]! << 8) | database[17]!;
  return size === 1 ? 65_536 : size;
}

/** The database marked as not in WAL mode (a copy when it has to change). */
function asRollbackJournal(database: Uint8Array): Uint8Array {
  if (database.byteLength < 100) return database;
  if (FORMAT_VERSION_OFFSETS.every((offset) => database[offset] === 1)) return database;
  const copy = database.slice();
  for (const offset of FORMAT_VERSION_OFFSETS) copy[offset] = 1;
  return copy;
}
