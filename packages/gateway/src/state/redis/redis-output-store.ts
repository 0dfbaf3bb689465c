/**
 * The `SharedOutputStore` of a team gateway, in Redis (key names after the client's prefix):
 *
 *   output:tool-outputs/<conversation>/<file>   a string, the output's bytes (one SET)
 *   outputs:saved                               a sorted set: relative path → last save, epoch ms
 *
 * Paths are checked by the one layout every shared store keeps (../outputs/output-paths.ts)
 * before Redis is asked. Each save sets the output to expire `retentionDays` later (0: never);
 * saving the same output again (names are content-addressed) rewrites it and starts its time
 * again. `prune` removes what was last saved before a time, through the sorted set.
 *
 * An output is saved whole, as one command: the client's command timeout must allow for the
 * largest output (tens of MB), so this store wants a connection with a longer timeout than the
 * conversation store's 250 ms. It is read in ranges of `READ_RANGE_BYTES` (GETRANGE), one range
 * per command, each sent once the one before is in: every read in flight on the connection has at
 * most one range queued, so a small output's read waits behind a range per read in flight, never
 * behind whole outputs of tens of MB (issue 33, finding 8: Bob's 4 reads of a 10 MB output made
 * Alice's read wait for 40 MB, past the connection's limit). Reads go on a connection of their own
 * (`readClient`): on the saves' one, a read waited behind every save queued there (Bob's three
 * 10 MB saves held Alice's read for 4 s over an 8 MB/s link).
 */
import * as path from 'node:path';
import type { Redis } from 'ioredis';
import { DAY_MS } from '@toolmask/core/storage';
import type { SharedOutputStore } from '../stores.js';
import { checkRoot, placeOfRead, placeOfSave, relativePathOf } from '../outputs/output-paths.js';

export interface RedisOutputStoreOptions {
  /** The absolute path snippets name outputs under (not a folder of this machine). */
  root: string;
  /** Days an output is kept after its last save; 0 keeps it until `prune` removes it. */
  retentionDays: number;
  /**
   * The connection reads go on, apart from saves: a save is one SET of up to tens of MB, and a
   * read queued behind saves on their connection would wait for all their bytes. @default the
   * saves' connection
   */
  readClient?: Redis;
}

const INDEX = 'outputs:saved';
const outputKey = (relativePath: string) => `output:${relativePath}`;
/** Bytes one command of a read carries at most (one GETRANGE). */
export const READ_RANGE_BYTES = 512 * 1024;
/** Outputs removed per script run of `prune`. */
const PRUNE_BATCH = 200;

/**
 * KEYS: the index, then one output key per path. ARGV: before (ms), then the paths. Removes each
 * output still last saved before the limit (a save in between keeps it); returns how many of
 * their keys were there.
 */
const PRUNE_OUTPUTS = `
local before = tonumber(ARGV[1])
local removed = 0
for i = 2, #ARGV do
  local saved = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if saved and tonumber(saved) < before then
    removed = removed + redis.call('UNLINK', KEYS[i])
    redis.call('ZREM', KEYS[1], ARGV[i])
  end
end
return removed
`;

interface OutputScripts {
  toolmaskPruneOutputs(...keysAndArgs: Array<string | number>): Promise<number>;
}

export function createRedisOutputStore(
  client: Redis,
  options: RedisOutputStoreOptions,
): SharedOutputStore {
  const root = checkRoot(options.root);
  if (!(options.retentionDays >= 0) || !Number.isFinite(options.retentionDays)) {
    throw new RangeError(`retentionDays must be 0 or more: ${options.retentionDays}`);
  }
  const ttlMs = Math.round(options.retentionDays * DAY_MS);
  client.defineCommand('toolmaskPruneOutputs', { lua: PRUNE_OUTPUTS });
  const scripts = client as unknown as OutputScripts;

  return {
    root,

    async save(directory, fileName, text) {
      const relative = relativePathOf(placeOfSave(root, directory, fileName));
      const bytes = Buffer.from(text, 'utf8');
      const now = Date.now();
      const key = outputKey(relative);
      const index = client.multi().zadd(INDEX, now, relative);
      if (ttlMs > 0) {
        // Entries older than the retention name outputs Redis has expired already.
        index.zremrangebyscore(INDEX, '-inf', `(${now - ttlMs}`).pexpire(INDEX, ttlMs);
      }
      // Two commands at once rather than one transaction: the keys may live in different slots.
      const [, replies] = await Promise.all([
        ttlMs > 0 ? client.set(key, bytes, 'PX', ttlMs) : client.set(key, bytes),
        index.exec(),
      ]);
      for (const [error] of replies ?? []) if (error) throw error;
      return path.join(directory, fileName);
    },

    async read(relativePath) {
      const key = outputKey(relativePathOf(placeOfRead(relativePath)));
      return readInRanges(options.readClient ?? client, key);
    },

    async prune(beforeMs) {
      let removed = 0;
      for (;;) {
        const paths = await client.zrangebyscore(
          INDEX,
          '-inf',
          `(${beforeMs}`,
          'LIMIT',
          0,
          PRUNE_BATCH,
        );
        if (paths.length === 0) break;
        removed += await scripts.toolmaskPruneOutputs(
          paths.length + 1,
          INDEX,
          ...paths.map(outputKey),
          beforeMs,
          ...paths,
        );
        if (paths.length < PRUNE_BATCH) break;
      }
      return removed;
    },

    // The connection is the team stores' to close (state/team-stores.ts).
    async close() {},
  };
}

/**
 * The output at `key` read range by range, into one buffer of its length; undefined when it is
 * not there, or went (expired) while it was read. Names are content-addressed: an output saved
 * again meanwhile holds the same bytes.
 */
async function readInRanges(client: Redis, key: string): Promise<Buffer | undefined> {
  // Its length and first range in one round trip: all of a small output.
  const replies = await client
    .multi()
    .strlen(key)
    .getrangeBuffer(key, 0, READ_RANGE_BYTES - 1)
    .exec();
  if (!replies) throw new Error(`the read of ${key} was not run (MULTI aborted)`);
  for (const [error] of replies) if (error) throw error;
  const length = replies[0]?.[1] as number;
  const first = replies[1]?.[1] as Buffer;
  if (length === 0) return (await client.exists(key)) ? Buffer.alloc(0) : undefined;
  if (first.length === length) return first;
  const whole = Buffer.allocUnsafe(length);
  first.copy(whole, 0);
  for (let at = first.length; at < length; at += READ_RANGE_BYTES) {
    const end = Math.min(at + READ_RANGE_BYTES, length);
    const range = await client.getrangeBuffer(key, at, end - 1);
    if (range.length !== end - at) return undefined;
    range.copy(whole, at);
  }
  return whole;
}
