/**
 * A single gateway's output writes off the request path (issue 30). The client of a gateway
 * resends its whole unmasked history with every request, so the full text of every output the
 * gateway masked is in the client's next request: a file not yet written is lost only until then.
 * So the request does not wait for the write:
 * - `save` names the file at once (the same content-addressed path the store would return) and
 *   queues the text; the queue is written in batches, `batchFiles` files per turn of the event
 *   loop, after the request's own work: while a pass runs (`holdWrites`, from the pipeline), no
 *   batch starts, since a pass gives the event loop a turn every few milliseconds and writes
 *   started in those turns would run inside it (its `mask` phase); a read-back's `flush`, or a
 *   queue past half its bound, writes anyway;
 * - the queue is bounded by the bytes of text it holds (`maxBytes`): a save that would go over
 *   waits for its own write, as before (write, then mask), so memory never grows with a burst;
 * - a read-back (`flush`) writes whatever is queued first, then reads the files: an output still
 *   queued is served from the queue's text;
 * - a failed write is counted (`onFailure`) and kept, its text still counted in the bound; the
 *   next request of its conversation, which carries the output again, queues it again
 *   (`retryFailed`, from conversation.ts). Its text is kept rather than decoded again from that
 *   request: the gateway does not decode an entry the client sent unchanged (body/). While the
 *   disk keeps failing, the failed texts fill the bound and saves wait for their writes again,
 *   so the outputs whose write fails are left whole, as before the queue.
 *
 * The bytes sent upstream do not change: the snippet names the same path either way. The
 * in-process host keeps write-before-mask: there the masked history is the only copy
 * (docs/reliability.md). A team's replicas keep it too: another replica may be asked to read an
 * output back before this one has written it.
 */
import * as path from 'node:path';
import type { ToolOutputStore } from '@toolmask/core/storage';

/** Bytes of output text the queue holds at most. */
export const QUEUED_OUTPUT_BYTES = 64 * 1024 * 1024;
/** Files written in one turn of the event loop. */
export const QUEUE_BATCH_FILES = 32;

/** Writes that failed and are not written yet; a conversation's next request retries its own. */
export interface FailedOutputWrites {
  readonly failedCount: number;
  isFailed(filePath: string): boolean;
  /** Queues again the failed writes into `directory` (a conversation's folder). */
  retryFailed(directory: string): void;
}

export interface QueuedOutputStore extends ToolOutputStore, FailedOutputWrites {
  /** Bytes of text held now: queued, and kept from failed writes. */
  readonly queuedBytes: number;
  /**
   * Writes everything queued (failures counted and remembered, not thrown). With `timeoutMs`, stops
   * waiting after it (a disk that hangs must not hold a closing gateway): true when all was written.
   */
  flush(timeoutMs?: number): Promise<boolean>;
  /**
   * Holds the queue's writes while a pass runs (see the module comment); the function returned
   * lets go (once), and writing goes on when no hold is left.
   */
  holdWrites(): () => void;
}

export interface QueuedOutputStoreOptions {
  /** @default QUEUED_OUTPUT_BYTES */
  maxBytes?: number;
  /** @default QUEUE_BATCH_FILES */
  batchFiles?: number;
  /** A queued write failed (`/metrics`, the log). */
  onFailure: (filePath: string, error: unknown) => void;
}

interface QueuedWrite {
  directory: string;
  fileName: string;
  text: string;
  bytes: number;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export function queuedOutputStore(
  store: ToolOutputStore,
  options: QueuedOutputStoreOptions,
): QueuedOutputStore {
  return new OutputWriteQueue(store, options);
}

class OutputWriteQueue implements QueuedOutputStore {
  private readonly maxBytes: number;
  private readonly batchFiles: number;
  private readonly queue = new Map<string, QueuedWrite>();
  private readonly failed = new Map<string, QueuedWrite>();
  private heldBytes = 0;
  private draining: Promise<void> | undefined;
  /** Passes under way (`holdWrites`), and flushes waiting (which write whatever the holds). */
  private holds = 0;
  private flushes = 0;
  /** Resolves the drain's wait for the last hold to go. */
  private wake: (() => void) | undefined;

  constructor(
    private readonly store: ToolOutputStore,
    private readonly options: QueuedOutputStoreOptions,
  ) {
    this.maxBytes = options.maxBytes ?? QUEUED_OUTPUT_BYTES;
    this.batchFiles = options.batchFiles ?? QUEUE_BATCH_FILES;
  }

  get queuedBytes(): number {
    return this.heldBytes;
  }

  get failedCount(): number {
    return this.failed.size;
  }

  isFailed(filePath: string): boolean {
    return this.failed.has(filePath);
  }

  retryFailed(directory: string): void {
    const folder = path.resolve(directory);
    for (const [filePath, write] of this.failed) {
      if (path.dirname(filePath) !== folder) continue;
      this.failed.delete(filePath);
      this.enqueue(filePath, write);
    }
  }

  async save(directory: string, fileName: string, text: string, byteLength?: number) {
    const bytes = byteLength ?? Buffer.byteLength(text, 'utf8');
    const filePath = path.resolve(directory, fileName);
    if (this.queue.has(filePath)) return filePath;
    const failedBefore = this.failed.get(filePath);
    if (failedBefore) {
      this.failed.delete(filePath);
      this.enqueue(filePath, failedBefore);
      return filePath;
    }
    // A name the store refuses is refused now; a write over the bound waits for itself.
    const plainName = fileName === path.basename(fileName) && !fileName.startsWith('.');
    if (!plainName || this.heldBytes + bytes > this.maxBytes) {
      return await this.store.save(directory, fileName, text, bytes);
    }
    this.heldBytes += bytes;
    this.enqueue(filePath, { directory, fileName, text, bytes });
    return filePath;
  }

  async flush(timeoutMs?: number): Promise<boolean> {
    // A flush writes whatever a pass holds, until everything is written (even past its timeout).
    this.flushes++;
    this.wakeDrain();
    const written = async () => {
      try {
        while (this.queue.size > 0 || this.draining) await (this.draining ?? this.started());
        return true;
      } finally {
        this.flushes--;
      }
    };
    if (timeoutMs === undefined) return written();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, timeoutMs, false)));
    try {
      return await Promise.race([written(), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  holdWrites(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      if (this.holds === 0) this.wakeDrain();
    };
  }

  /** Whether the drain waits: a pass holds it, nothing flushes, the queue is under half its bound. */
  private get waiting(): boolean {
    return this.holds > 0 && this.flushes === 0 && this.heldBytes <= this.maxBytes / 2;
  }

  private wakeDrain(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** Puts a held write (new, or failed before) on the queue. */
  private enqueue(filePath: string, write: QueuedWrite): void {
    this.queue.set(filePath, write);
    // Past half the bound, a held drain writes anyway.
    if (!this.waiting) this.wakeDrain();
    void this.started();
  }

  private started(): Promise<void> {
    this.draining ??= this.drain().finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }

  private async drain(): Promise<void> {
    // After the request that queued them has gone on.
    await nextTurn();
    while (this.queue.size > 0) {
      if (this.waiting) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        continue;
      }
      const batch: Array<[string, QueuedWrite]> = [];
      for (const entry of this.queue) {
        if (batch.length >= this.batchFiles) break;
        batch.push(entry);
      }
      for (const [filePath, write] of batch) {
        // A pass that began during the batch holds the rest of it too.
        if (this.waiting) break;
        await this.writeNow(filePath, write);
      }
      if (this.queue.size > 0) await nextTurn();
    }
  }

  /** Writes `write` now and takes it off the queue; a failure is counted and kept. */
  private async writeNow(filePath: string, write: QueuedWrite): Promise<void> {
    let written = false;
    try {
      await this.store.save(write.directory, write.fileName, write.text, write.bytes);
      written = true;
    } catch (error) {
      this.options.onFailure(filePath, error);
    }
    this.queue.delete(filePath);
    if (written) this.heldBytes -= write.bytes;
    else this.failed.set(filePath, write);
  }
}
