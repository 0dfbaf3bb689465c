import { describe, expect, it, vi } from 'vitest';
import { sharedSettingsLoader } from './sharedSettingsLoader.js';
import type { SettingsLayer } from './settingsFile.js';

const layer = (threshold: number): SettingsLayer[] => [
  {
    scope: 'user',
    file: '/u/settings.json',
    present: true,
    settings: { toolProtectionThreshold: threshold },
  },
];

/** A load the test finishes by hand. */
function pendingLoad() {
  let finish: (layers: SettingsLayer[]) => void = () => undefined;
  const promise = new Promise<SettingsLayer[]>((resolve) => (finish = resolve));
  return { promise, finish };
}

/** A promise's outcome as it stands, read without awaiting it. */
function settled<T>(promise: Promise<T>): { done: boolean; value?: T } {
  const state: { done: boolean; value?: T } = { done: false };
  void promise.then((value) => {
    state.done = true;
    state.value = value;
  });
  return state;
}

describe('sharedSettingsLoader (issue 15, item 5)', () => {
  it('shares one read between overlapping callers', async () => {
    let reads = 0;
    const load = sharedSettingsLoader(async () => {
      reads++;
      return layer(1);
    });
    expect(await Promise.all([load(), load(), load()])).toEqual([layer(1), layer(1), layer(1)]);
    expect(reads).toBe(1);
  });

  it('never holds a turn on a read that does not finish, and picks the file up once it does', async () => {
    vi.useFakeTimers();
    try {
      const loads = [pendingLoad(), pendingLoad()];
      let reads = 0;
      const load = sharedSettingsLoader(
        () => (loads[reads++] as ReturnType<typeof pendingLoad>).promise,
        200,
      );
      // The first turn waits 200 ms, then goes on with what was read last (nothing yet).
      const first = settled(load());
      await vi.advanceTimersByTimeAsync(199);
      expect(first.done).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(first).toEqual({ done: true, value: [] });
      // Later turns do not wait for the stuck read again, nor start another one: answered
      // without any time passing.
      const again = settled(load());
      await vi.advanceTimersByTimeAsync(0);
      expect(again).toEqual({ done: true, value: [] });
      expect(reads).toBe(1);
      // The stuck read ends (the file was fixed): the next turn reads afresh.
      loads[0]!.finish(layer(5));
      await vi.advanceTimersByTimeAsync(0);
      const next = load();
      loads[1]!.finish(layer(7));
      expect(await next).toEqual(layer(7));
      expect(reads).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
