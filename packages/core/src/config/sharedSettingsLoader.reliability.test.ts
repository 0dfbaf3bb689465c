/**
 * The settings loader's wait on the wall clock (the e2e lane: a loaded machine must not fail the
 * unit lane). sharedSettingsLoader.test.ts checks the same on fake timers, where the time a turn
 * waits is counted on the loader's own clock.
 */
import { describe, expect, it } from 'vitest';
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

describe('sharedSettingsLoader on the wall clock (issue 15, item 5)', () => {
  it('never holds a turn on a read that does not finish, and picks the file up once it does', async () => {
    const loads = [pendingLoad(), pendingLoad()];
    let reads = 0;
    const load = sharedSettingsLoader(
      () => (loads[reads++] as ReturnType<typeof pendingLoad>).promise,
      200,
    );
    // The first turn waits 200 ms, then goes on with what was read last (nothing yet).
    const started = Date.now();
    expect(await load()).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    // Later turns do not wait for the stuck read again, nor start another one.
    const again = Date.now();
    expect(await load()).toEqual([]);
    // (it answers at once; 100 ms leaves room for a loaded machine)
    expect(Date.now() - again).toBeLessThan(100);
    expect(reads).toBe(1);
    // The stuck read ends (the file was fixed): the next turn reads afresh.
    loads[0]!.finish(layer(5));
    await new Promise((resolve) => setImmediate(resolve));
    const next = load();
    loads[1]!.finish(layer(7));
    expect(await next).toEqual(layer(7));
    expect(reads).toBe(2);
  });
});
