import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ToolOutputStore } from '@toolmask/core/storage';
import { queuedOutputStore } from './queued-output-store.js';

/** A store that records its writes, each held until `open()`; `failing` makes them throw. */
function heldStore() {
  const written = new Map<string, string>();
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const store: ToolOutputStore & { failing: boolean } = {
    failing: false,
    async save(directory, fileName, text) {
      await gate;
      if (store.failing) throw Object.assign(new Error('disk full'), { code: 'ENOSPC' });
      const filePath = path.resolve(directory, fileName);
      written.set(filePath, text);
      return filePath;
    },
  };
  return { store, written, open: () => open() };
}

describe('queuedOutputStore', () => {
  it('names the file at once and writes it later, without the caller waiting', async () => {
    const held = heldStore();
    const queued = queuedOutputStore(held.store, { onFailure: () => undefined });
    // The store holds every write: a save that waited for it would never resolve.
    const saved = await queued.save('/outputs/session-a', 'out-1.txt', 'hello');
    expect(saved).toBe('/outputs/session-a/out-1.txt');
    expect(queued.queuedBytes).toBe(5);
    expect(held.written.size).toBe(0);
    held.open();
    await queued.flush();
    expect(held.written.get(saved)).toBe('hello');
    expect(queued.queuedBytes).toBe(0);
  });

  it('holds at most maxBytes of text: a save over the bound waits for its own write', async () => {
    const held = heldStore();
    const queued = queuedOutputStore(held.store, { maxBytes: 10, onFailure: () => undefined });
    await queued.save('/o', 'a.txt', '12345678');
    let overDone = false;
    const over = queued.save('/o', 'b.txt', '12345').then(() => (overDone = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(overDone).toBe(false);
    expect(queued.queuedBytes).toBe(8);
    held.open();
    await over;
    expect(held.written.get('/o/b.txt')).toBe('12345');
    await queued.flush();
    expect(held.written.get('/o/a.txt')).toBe('12345678');
  });

  it('flush with a timeout stops waiting for a store that hangs, and says so', async () => {
    const held = heldStore();
    const queued = queuedOutputStore(held.store, { onFailure: () => undefined });
    await queued.save('/o', 'a.txt', 'text');
    expect(await queued.flush(20)).toBe(false);
    expect(queued.queuedBytes).toBe(4);
    held.open();
    expect(await queued.flush(10_000)).toBe(true);
    expect(held.written.get('/o/a.txt')).toBe('text');
  });

  it('flush (what a read-back does first) writes whatever is still queued', async () => {
    const held = heldStore();
    const queued = queuedOutputStore(held.store, { batchFiles: 2, onFailure: () => undefined });
    for (let index = 0; index < 5; index++) await queued.save('/o', `f${index}.txt`, `t${index}`);
    const flushed = queued.flush();
    held.open();
    await flushed;
    expect([...held.written.keys()].sort()).toEqual([0, 1, 2, 3, 4].map((i) => `/o/f${i}.txt`));
  });

  it('counts a failed write, keeps its text in the bound, and writes it when retried', async () => {
    const held = heldStore();
    const failures: string[] = [];
    const queued = queuedOutputStore(held.store, {
      maxBytes: 20,
      onFailure: (filePath, error) => failures.push(`${filePath}: ${(error as Error).message}`),
    });
    held.store.failing = true;
    held.open();
    await queued.save('/o/session-a', 'x.txt', 'lost once');
    await queued.save('/o/session-b', 'y.txt', 'other');
    await queued.flush();
    expect(failures).toEqual(['/o/session-a/x.txt: disk full', '/o/session-b/y.txt: disk full']);
    expect(queued.isFailed('/o/session-a/x.txt')).toBe(true);
    expect(queued.failedCount).toBe(2);
    // Still held: a save that would go over the bound waits for its own write (and fails).
    expect(queued.queuedBytes).toBe(14);
    await expect(queued.save('/o/session-a', 'z.txt', '0123456789')).rejects.toThrow('disk full');
    // The disk is back; the next request of session-a retries session-a's writes only.
    held.store.failing = false;
    queued.retryFailed('/o/session-a');
    await queued.flush();
    expect(held.written.get('/o/session-a/x.txt')).toBe('lost once');
    expect(queued.isFailed('/o/session-b/y.txt')).toBe(true);
    expect(queued.failedCount).toBe(1);
    expect(queued.queuedBytes).toBe(5);
  });

  it('refuses a name the store refuses at once (the store says why)', async () => {
    const refusing: ToolOutputStore = {
      save: async () => {
        throw new Error('refusing file name');
      },
    };
    const queued = queuedOutputStore(refusing, { onFailure: () => undefined });
    await expect(queued.save('/o', '../x.txt', 'text')).rejects.toThrow('refusing file name');
    expect(queued.queuedBytes).toBe(0);
  });

  it('starts no write while a pass holds the queue, and writes once the last hold goes', async () => {
    const started: string[] = [];
    const store: ToolOutputStore = {
      async save(directory, fileName) {
        started.push(fileName);
        return path.resolve(directory, fileName);
      },
    };
    const queued = queuedOutputStore(store, { onFailure: () => undefined });
    const turns = async (count: number) => {
      for (let turn = 0; turn < count; turn++) await new Promise((r) => setImmediate(r));
    };
    const first = queued.holdWrites();
    const second = queued.holdWrites();
    await queued.save('/o', 'a.txt', 'aaa');
    // A pass gives the event loop turns: none of them writes.
    await turns(5);
    expect(started).toEqual([]);
    first();
    first(); // once only: the other pass still holds
    await turns(5);
    expect(started).toEqual([]);
    second();
    await turns(5);
    expect(started).toEqual(['a.txt']);
    expect(queued.queuedBytes).toBe(0);
  });

  it('writes while held when a read-back flushes, or when the queue is past half its bound', async () => {
    const started: string[] = [];
    const store: ToolOutputStore = {
      async save(directory, fileName) {
        started.push(fileName);
        return path.resolve(directory, fileName);
      },
    };
    const queued = queuedOutputStore(store, { maxBytes: 10, onFailure: () => undefined });
    const release = queued.holdWrites();
    await queued.save('/o', 'a.txt', '1234');
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([]);
    await queued.flush();
    expect(started).toEqual(['a.txt']);
    await queued.save('/o', 'b.txt', '123456');
    for (let turn = 0; turn < 5; turn++) await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a.txt', 'b.txt']);
    release();
  });

  it('stops a batch under way when a pass takes a hold, and finishes it after', async () => {
    const started: string[] = [];
    let release: () => void = () => undefined;
    const store: ToolOutputStore = {
      async save(directory, fileName) {
        started.push(fileName);
        // A pass begins while the first write of the batch is under way.
        if (started.length === 1) release = queued.holdWrites();
        return path.resolve(directory, fileName);
      },
    };
    const queued = queuedOutputStore(store, { onFailure: () => undefined });
    for (const name of ['a.txt', 'b.txt', 'c.txt']) await queued.save('/o', name, name);
    for (let turn = 0; turn < 5; turn++) await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a.txt']);
    release();
    await queued.flush();
    expect(started).toEqual(['a.txt', 'b.txt', 'c.txt']);
  });
});
