/**
 * A replica's memory of virtual key lookups (issue 33, finding 9): made-up keys cannot push a
 * person's key out, and a revoked key does not work for ever while the store is down.
 */
import { describe, expect, it } from 'vitest';
import { TeamKeys } from './team-keys.js';
import { LOOKUP_CACHE_SIZE, STALE_LIMIT_MS } from './key-lookup-cache.js';

function setUp() {
  let clock = 1_760_000_000_000;
  let down = false;
  let lookups = 0;
  const keys = new TeamKeys({
    keys: {
      async lookup(raw) {
        lookups += 1;
        if (down) throw new Error('the store is down (test)');
        return raw === 'tmk_alice' ? { name: 'alice' } : undefined;
      },
    },
    providerKeys: { gemini: 'team-key' },
    cookieSecret: async () => 'secret',
    now: () => clock,
  });
  return {
    keys,
    advance: (ms: number) => (clock += ms),
    setDown: (value: boolean) => (down = value),
    lookups: () => lookups,
  };
}

describe('virtual key lookups remembered by a replica', () => {
  it('10,001 made-up keys do not push out a person seen: their turns go on while the store is down', async () => {
    const { keys, advance, setDown } = setUp();
    const alice = await keys.principalOfKey('tmk_alice');
    expect(alice?.kind).toBe('owner');
    for (let index = 0; index <= LOOKUP_CACHE_SIZE; index++) {
      expect(await keys.principalOfKey(`tmk_made-up-${index}`)).toBeUndefined();
    }
    setDown(true);
    advance(61_000);
    expect(await keys.principalOfKey('tmk_alice')).toEqual(alice);
  });

  it('while the store is down a key seen works for a while only, so a revocation takes effect', async () => {
    const { keys, advance, setDown } = setUp();
    await keys.principalOfKey('tmk_alice');
    setDown(true);
    advance(STALE_LIMIT_MS - 1_000);
    expect(await keys.principalOfKey('tmk_alice')).toBeDefined();
    advance(2_000);
    expect(await keys.principalOfKey('tmk_alice')).toBeUndefined();
  });

  it('a made-up key is remembered as unknown for a minute: no store read per request', async () => {
    const { keys, lookups } = setUp();
    for (let request = 0; request < 5; request++) await keys.principalOfKey('tmk_made-up');
    expect(lookups()).toBe(1);
  });
});
