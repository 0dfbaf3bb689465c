import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect, it } from 'vitest';
import { STATE_LOCK_FILE, holdStateLock } from './state-lock.js';

/** A pid no process has (the kernel's pids stay below 2^22). */
const GONE = 2_147_483_646;

it('two takeovers of one stale lock at once: exactly one wins, 200 times in a row', async () => {
  const outcomes: number[] = [];
  for (let round = 0; round < 200; round++) {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-state-lock-'));
    try {
      await fs.writeFile(path.join(dir, STATE_LOCK_FILE), `${GONE}\n`);
      const results = await Promise.allSettled([holdStateLock(dir), holdStateLock(dir)]);
      outcomes.push(results.filter((result) => result.status === 'fulfilled').length);
      // The winner's lock names this process, and nothing of the takeover is left beside it.
      expect((await fs.readFile(path.join(dir, STATE_LOCK_FILE), 'utf8')).trim()).toBe(
        String(process.pid),
      );
      expect(await fs.readdir(dir)).toEqual([STATE_LOCK_FILE]);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }
  expect(outcomes.filter((won) => won !== 1)).toEqual([]);
});

it('a lock whose holder is alive is refused; its release leaves the folder empty', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-state-lock-'));
  try {
    const release = await holdStateLock(dir);
    await expect(holdStateLock(dir)).rejects.toThrow(/already running/);
    await release();
    expect(await fs.readdir(dir)).toEqual([]);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});
