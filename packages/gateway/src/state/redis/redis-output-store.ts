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
 * An output is sent and read whole, as one command: the client's command timeout must allow for
 * the largest output (tens of MB), so this store wants a connection with a longer timeout than
 * the conversation store's 250 ms.
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
}

const INDEX = 'outputs:saved';
const outputKey = (relativePath: string) => `output:${relativePath}`;
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
      const relative = relativePathOf(placeOfRead(relativePath));
      return (await client.getBuffer(outputKey(relative))) ?? undefined;
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
