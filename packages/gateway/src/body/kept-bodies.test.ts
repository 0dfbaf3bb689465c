import { describe, expect, it } from 'vitest';
import { eventLoopPauser } from '@toolmask/core/utils';
import { KeptBodies, sameBytes } from './kept-bodies.js';

/** A body in a buffer of its own (not a slice of Node's shared pool). */
const bodyOf = (bytes: number) => ({ raw: Buffer.alloc(bytes, 0x61) });

describe('KeptBodies', () => {
  it('stays within its budget, dropping the least recently kept bodies first', () => {
    const kept = new KeptBodies(30_000);
    const [a, b, c] = [{}, {}, {}];
    expect(kept.keep(a, bodyOf(10_000))).toBe(true);
    expect(kept.keep(b, bodyOf(10_000))).toBe(true);
    // a again: now the most recent.
    expect(kept.keep(a, bodyOf(10_000))).toBe(true);
    expect(kept.keep(c, bodyOf(15_000))).toBe(true);
    expect(kept.keptBytes).toBe(25_000);
    expect(kept.get(b)).toBeUndefined();
    expect(kept.get(a)?.raw.length).toBe(10_000);
    expect(kept.get(c)?.raw.length).toBe(15_000);
  });

  it('keeps nothing larger than the budget, and the earlier body of that key is let go', () => {
    const kept = new KeptBodies(20_000);
    const key = {};
    kept.keep(key, bodyOf(10_000));
    expect(kept.keep(key, bodyOf(20_001))).toBe(false);
    expect(kept.get(key)).toBeUndefined();
    expect(kept.keptBytes).toBe(0);
  });

  it('counts the memory a slice holds, not the slice', () => {
    const kept = new KeptBodies(100_000);
    kept.keep({}, { raw: Buffer.alloc(50_000).subarray(10, 20) });
    expect(kept.keptBytes).toBe(50_000);
  });

  it('releases a key', () => {
    const kept = new KeptBodies(100_000);
    const key = {};
    kept.keep(key, bodyOf(10_000));
    kept.release(key);
    kept.release(key);
    expect(kept.get(key)).toBeUndefined();
    expect(kept.keptBytes).toBe(0);
  });
});

describe('sameBytes', () => {
  it('compares across its slices', async () => {
    const a = Buffer.alloc(9 << 20, 1);
    const b = Buffer.from(a);
    expect(await sameBytes(a, b, eventLoopPauser())).toBe(true);
    b[(9 << 20) - 1] = 2;
    expect(await sameBytes(a, b, eventLoopPauser())).toBe(false);
    expect(await sameBytes(a, b.subarray(1), eventLoopPauser())).toBe(false);
  });
});
