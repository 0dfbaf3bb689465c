/**
 * A conversation's state after each answer (`ConversationMeta`), as the file store keeps it:
 * appended as one line to `conversations/<id>/meta.jsonl`, the newest whole line being the state.
 * An append is one small write into a file that exists; a whole-file replacement (temporary file,
 * `rename`) made a new file and dropped the old one with every request, several times the CPU
 * (6d, fourth pass, in benchmarks.md). A crash mid-append leaves a torn last line, which is skipped:
 * the state before it is loaded, as the temporary file and rename left the previous state. The
 * next state is not appended to a torn line (it would be glued to it, and skipped with it): a log
 * read torn, or whose append failed, is rewritten instead.
 *
 * The log is rewritten as its newest line alone (atomically) once its appends pass
 * `COMPACT_AFTER_BYTES`, so it stays a few kilobytes. A `meta.json` left by an earlier gateway is
 * read when no line is.
 */
import * as path from 'node:path';
import { appendLines, parseJsonLines, readIfExists, writeAtomically } from '@toolmask/core/storage';
import type { ConversationMeta } from './stores.js';

/** Bytes appended to one log after which it is rewritten as its newest line alone. */
export const COMPACT_AFTER_BYTES = 64 * 1024;

/** Logs whose size is remembered at most (past it, the oldest is counted from 0 again). */
const REMEMBERED_LOGS = 10_000;

/** The size remembered for a log whose last line may be torn: its next state rewrites it. */
const TORN = Number.POSITIVE_INFINITY;

export const META_LOG = 'meta.jsonl';
/** Where an earlier gateway kept the state (replaced at each answer). */
export const OLD_META_FILE = 'meta.json';

const isMeta = (value: unknown): value is ConversationMeta =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export class MetaLog {
  /** Bytes in each log this process knows of (read or appended). */
  private readonly sizes = new Map<string, number>();

  constructor(
    private readonly stateDir: string,
    private readonly onWarning: (message: string) => void,
  ) {}

  /** The newest state kept in `folder`, if any. */
  async read(folder: string): Promise<ConversationMeta | undefined> {
    const file = path.join(folder, META_LOG);
    const text = await readIfExists(file);
    if (text !== undefined) {
      const torn = text.length > 0 && !text.endsWith('\n');
      this.remember(folder, torn ? TORN : Buffer.byteLength(text));
      const lines = parseJsonLines(text, (line) =>
        this.onWarning(`${file}:${line}: not JSON; skipped`),
      );
      const newest = lines.findLast(isMeta);
      if (newest) return newest;
    }
    const old = path.join(folder, OLD_META_FILE);
    const oldText = await readIfExists(old);
    if (!oldText) return undefined;
    try {
      const meta: unknown = JSON.parse(oldText);
      if (isMeta(meta)) return meta;
    } catch {
      // reported below
    }
    this.onWarning(`${old}: not JSON; ignored`);
    return undefined;
  }

  /** Appends `meta` as the newest state in `folder` (the whole log rewritten when due). */
  async append(folder: string, meta: ConversationMeta): Promise<void> {
    const file = path.join(folder, META_LOG);
    const line = JSON.stringify(meta) + '\n';
    const bytes = Buffer.byteLength(line);
    const size = this.sizes.get(folder) ?? 0;
    const options = { root: this.stateDir, calls: 'inline' } as const;
    try {
      if (size > 0 && size + bytes > COMPACT_AFTER_BYTES) {
        await writeAtomically(file, line, options);
        this.remember(folder, bytes);
      } else {
        await appendLines(file, line, options);
        this.remember(folder, size + bytes);
      }
    } catch (error) {
      // An append that failed may have written part of its line.
      this.remember(folder, TORN);
      throw error;
    }
  }

  private remember(folder: string, bytes: number): void {
    this.sizes.delete(folder);
    this.sizes.set(folder, bytes);
    if (this.sizes.size > REMEMBERED_LOGS) {
      this.sizes.delete(this.sizes.keys().next().value as string);
    }
  }

  /** Forgets what it knows of `folder` (removed). */
  forget(folder: string): void {
    this.sizes.delete(folder);
  }
}
