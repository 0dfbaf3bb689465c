import { describe, expect, it, vi } from 'vitest';
import { sharedSettingsLoader } from './sharedSettingsLoader.js';
import type { SettingsLayer } from './settingsFile.js';

const layer = (threshold: number): SettingsLayer[] => [
  { scope: 'user', file: '/u/settings.json', settings: { toolProtectionThreshold: threshold } },
];

/** A load the test finishes by hand. */
function pendingLoad() {
  let finish: (layers: SettingsLayer[]) => void = () => undefined;
  const promise = new Promise<SettingsLayer[]>((resolve) => (finish = resolve));
  return { promise, finish };
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
    // The loader's clock is faked: its wait is checked to the millisecond, however busy the
    // machine (a wall-clock bound would fail under load; docs: README.md, Development).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const loads = [pendingLoad(), pendingLoad()];
      let reads = 0;
      const load = sharedSettingsLoader(
        () => (loads[reads++] as ReturnType<typeof pendingLoad>).promise,
        200,
      );
      // The first turn waits 200 ms, then goes on with what was read last (nothing yet).
      const first = watch(load());
      await vi.advanceTimersByTimeAsync(199);
      expect(first.settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(first.settled).toBe(true);
      expect(await first.promise).toEqual([]);
      // Later turns do not wait for the stuck read again, nor start another one: they answer
      // with no time passing at all.
      const again = watch(load());
      await turnOfTheEventLoop();
      expect(again.settled).toBe(true);
      expect(await again.promise).toEqual([]);
      expect(reads).toBe(1);
      // The stuck read ends (the file was fixed): the next turn reads afresh.
      loads[0]!.finish(layer(5));
      await turnOfTheEventLoop();
      const next = load();
      loads[1]!.finish(layer(7));
      expect(await next).toEqual(layer(7));
      expect(reads).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });
});

/** `promise`, and whether it has settled yet. */
function watch<T>(promise: Promise<T>): { promise: Promise<T>; settled: boolean } {
  const watched = { promise, settled: false };
  void promise.then(() => (watched.settled = true));
  return watched;
}

/** Every callback already queued runs (setImmediate is not faked). */
function turnOfTheEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
