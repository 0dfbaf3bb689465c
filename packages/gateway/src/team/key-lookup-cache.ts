/**
 * What a team replica remembers of its virtual key lookups (issue 33, finding 9), by the key's
 * SHA-256:
 *
 * - a key that exists, for `LOOKUP_TTL_MS` (then looked up again: a revocation takes effect
 *   within it); while the store cannot be reached, for at most `STALE_LIMIT_MS` after its last
 *   successful lookup, so an outage fails no turn of a person just seen, and a revoked key stops
 *   within that limit even if the store stays down;
 * - a key that does not exist, for `LOOKUP_TTL_MS`, apart: made-up keys, however many, only push
 *   out other made-up keys, never a person's.
 *
 * Each at most `LOOKUP_CACHE_SIZE` entries, the least recently looked up forgotten first.
 */

export const LOOKUP_TTL_MS = 60_000;
export const STALE_LIMIT_MS = 10 * 60_000;
export const LOOKUP_CACHE_SIZE = 10_000;

/** A Map with a bound, the oldest entry set forgotten first. */
function setBounded<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > LOOKUP_CACHE_SIZE) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}

export class KeyLookupCache {
  private readonly known = new Map<string, { name: string; checkedAt: number }>();
  private readonly unknown = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  /** The key's name (undefined: no such key); throws when it must ask and the store is down. */
  async nameOf(
    digest: string,
    lookup: () => Promise<{ name: string } | undefined>,
  ): Promise<string | undefined> {
    const now = this.now();
    const known = this.known.get(digest);
    if (known && now - known.checkedAt < LOOKUP_TTL_MS) return known.name;
    const unknownAt = this.unknown.get(digest);
    if (!known && unknownAt !== undefined && now - unknownAt < LOOKUP_TTL_MS) return undefined;
    let found: { name: string } | undefined;
    try {
      found = await lookup();
    } catch (error) {
      // The store is down: a key seen lately still works, for a while.
      if (known && now - known.checkedAt < STALE_LIMIT_MS) return known.name;
      throw error;
    }
    if (found) {
      this.unknown.delete(digest);
      setBounded(this.known, digest, { name: found.name, checkedAt: now });
    } else {
      this.known.delete(digest);
      setBounded(this.unknown, digest, now);
    }
    return found?.name;
  }
}
