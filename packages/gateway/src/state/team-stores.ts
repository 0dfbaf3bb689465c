/**
 * A team gateway's shared state, opened from the CLI's flags (docs/team.md):
 *
 * - `--store redis://HOST:PORT[/DB]`: conversations (decisions, the last answer's state, owners),
 *   usage records, the virtual keys and the owners' proofs, in Redis (never the dashboard
 *   cookie's secret: a replica takes it from its environment, so a copy of the store forges none);
 * - `--outputs`: the offloaded outputs, in Redis too by default, or in an S3 bucket
 *   (`s3://BUCKET/PREFIX`, `--s3-endpoint` for S3-compatible stores, credentials from the AWS
 *   SDK's chain) or a folder every replica mounts.
 *
 * Outputs in Redis or S3 are named under `TEAM_OUTPUTS_ROOT` in snippets: a path of no machine,
 * the same on every replica, read back through the gateway's `/mcp` only.
 */
import { loadOptionalPackage, type OptionalPackage } from '@toolmask/core/errors';
import type { Redis } from 'ioredis';
import { parseOutputsOption } from './outputs/outputs-option.js';
import type { RedisLiveness } from './redis/redis-liveness.js';
import type { RedisOwnerProofs } from './redis/redis-owner-proofs.js';
import type { VirtualKeys } from './redis/redis-virtual-keys.js';
import type {
  ConversationStore,
  OwnerOutputIndex,
  SharedOutputStore,
  UsageStore,
} from './stores.js';

/**
 * The Redis client and the AWS SDK are loaded by a team gateway only: a person's gateway would
 * carry 30 MB more for nothing (bench section 4c). Both are optional peer dependencies, not
 * installed with toolmask: a `MissingPackageError` names the one missing (docs/architecture.md).
 */
const IOREDIS: OptionalPackage = { name: 'ioredis', version: '6.0.0' };
const AWS_S3: OptionalPackage = { name: '@aws-sdk/client-s3', version: '3.1175.0' };

const redisModules = async () => ({
  ...(await loadOptionalPackage(
    IOREDIS,
    'a team gateway (--store redis://...)',
    () => import('./redis/redis-connection.js'),
  )),
  ...(await import('./redis/redis-conversation-store.js')),
  ...(await import('./redis/redis-output-store.js')),
  ...(await import('./redis/redis-usage-store.js')),
  ...(await import('./redis/redis-virtual-keys.js')),
  ...(await import('./redis/redis-owner-proofs.js')),
  ...(await import('./redis/redis-liveness.js')),
  ...(await import('./redis/redis-owner-outputs.js')),
});

/** Where outputs kept in Redis or S3 are named in snippets. */
export const TEAM_OUTPUTS_ROOT = '/toolmask-team';

/**
 * Outputs kept in Redis travel on a connection of their own with a longer limit: a 50 MB output
 * takes ~0.3 s on loopback, more over a network, and on the state's connection it would hold up
 * the small commands queued behind it (and trip their 250 ms limit).
 */
const OUTPUT_COMMAND_TIMEOUT_MS = 5_000;

/** What docs/team.md promises a Redis command at most. */
const DEFAULT_COMMAND_TIMEOUT_MS = 250;

/**
 * Outputs in Redis, saved and read only while Redis answers: their connection's 5 s limit is for
 * a large output's bytes, not for a Redis that froze (the state's connection finds that within
 * its 250 ms limit, and the save or read ends then: the output stays whole, the read answers an
 * error the model sees).
 */
function whileRedisAnswers(
  outputs: SharedOutputStore,
  liveness: RedisLiveness,
  guard: <T>(liveness: RedisLiveness, work: () => Promise<T>) => Promise<T>,
): SharedOutputStore {
  return {
    root: outputs.root,
    save: (directory, fileName, text, byteLength) =>
      guard(liveness, () => outputs.save(directory, fileName, text, byteLength)),
    read: (relativePath) => guard(liveness, () => outputs.read(relativePath)),
    prune: (beforeMs) => outputs.prune(beforeMs),
    close: () => outputs.close(),
  };
}

export interface TeamStoreOptions {
  /** `redis://HOST:PORT[/DB]` (`--store`). */
  store: string;
  /** `s3://BUCKET/PREFIX` or a folder (`--outputs`); default Redis. */
  outputs?: string;
  /** An S3-compatible store's URL (`--s3-endpoint`). */
  s3Endpoint?: string;
  /** Days state is kept (Redis TTLs, the outputs' sweep); 0 keeps everything. */
  retentionDays: number;
  /** Connection problems and warnings, one line each (never a password). */
  log: (line: string) => void;
  /** Milliseconds a Redis command may take. @default 250 */
  commandTimeoutMs?: number;
}

export interface TeamStores {
  conversations: ConversationStore;
  usage: UsageStore;
  outputs: SharedOutputStore;
  keys: VirtualKeys;
  /** Which owners the provider accepted (team/owner-ledger.ts). */
  proofs: RedisOwnerProofs;
  /** Which outputs each owner saved (their search goes through those). */
  ownerOutputs: OwnerOutputIndex;
  /** Resolves true once Redis answers, false after `timeoutMs`. */
  ready(timeoutMs: number): Promise<boolean>;
  /** Where things are, for the banner (no password). */
  readonly description: string;
  close(): Promise<void>;
}

function openRedis(
  redis: Awaited<ReturnType<typeof redisModules>>,
  url: string,
  log: (line: string) => void,
  commandTimeoutMs?: number,
  connectionName?: string,
): Redis {
  return redis.openRedisConnection(url, {
    onError: (message) => log(`[toolmask gateway] ${message}`),
    ...(commandTimeoutMs !== undefined ? { commandTimeoutMs } : {}),
    ...(connectionName !== undefined ? { connectionName } : {}),
  });
}

export async function openTeamStores(options: TeamStoreOptions): Promise<TeamStores> {
  const redis = await redisModules();
  const address = redis.parseRedisUrl(options.store);
  // Checked before anything connects: a bad --outputs is a usage error, not a retry loop.
  const outputsOption = options.outputs ? parseOutputsOption(options.outputs) : undefined;
  const client = openRedis(redis, options.store, options.log, options.commandTimeoutMs);
  // A frozen Redis costs a request one command's limit, not one per command (redis-liveness.ts).
  const liveness = redis.watchLiveness(client, {
    commandTimeoutMs: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    what: 'the team store (Redis)',
  });
  const { retentionDays } = options;
  let outputs: SharedOutputStore;
  let outputsPlace: string;
  const outputsClients: Redis[] = [];
  if (outputsOption?.kind === 's3') {
    const { createS3OutputStore } = await loadOptionalPackage(
      AWS_S3,
      'a team gateway with --outputs s3://...',
      () => import('./outputs/s3-output-store.js'),
    );
    outputs = createS3OutputStore({
      bucket: outputsOption.bucket,
      prefix: outputsOption.prefix,
      root: TEAM_OUTPUTS_ROOT,
      ...(options.s3Endpoint ? { endpoint: options.s3Endpoint } : {}),
    });
    outputsPlace = `s3://${outputsOption.bucket}/${outputsOption.prefix}`;
  } else if (outputsOption?.kind === 'dir') {
    const { createDirOutputStore } = await import('./outputs/dir-output-store.js');
    outputs = createDirOutputStore(outputsOption.path);
    outputsPlace = outputsOption.path;
  } else {
    // Saves and reads each on a connection of their own: a read never waits behind a save's MBs.
    const [saves, reads] = ['toolmask-gateway-outputs', 'toolmask-gateway-output-reads'].map(
      (name) => openRedis(redis, options.store, options.log, OUTPUT_COMMAND_TIMEOUT_MS, name),
    ) as [Redis, Redis];
    outputsClients.push(saves, reads);
    outputs = whileRedisAnswers(
      redis.createRedisOutputStore(saves, {
        root: TEAM_OUTPUTS_ROOT,
        retentionDays,
        readClient: reads,
      }),
      liveness,
      redis.whileAnswering,
    );
    outputsPlace = 'Redis';
  }
  return {
    conversations: redis.createRedisConversationStore(client, {
      retentionDays,
      onWarning: (message) => options.log(`[toolmask gateway] ${message}`),
    }),
    usage: redis.createRedisUsageStore(client, { retentionDays }),
    outputs,
    keys: redis.createVirtualKeys(client),
    proofs: redis.createRedisOwnerProofs(client),
    ownerOutputs: redis.createRedisOwnerOutputs(client, { retentionDays }),
    ready: (timeoutMs) => redis.redisReady(client, timeoutMs),
    description: `state in ${address.display}, outputs in ${outputsPlace}`,
    async close() {
      await Promise.allSettled([
        outputs.close(),
        redis.closeRedisConnection(client),
        ...outputsClients.map((one) => redis.closeRedisConnection(one)),
      ]);
    },
  };
}

/** The team's virtual keys alone (`toolmask keys`). */
export async function openTeamKeys(
  store: string,
  log: (line: string) => void,
): Promise<{
  keys: VirtualKeys;
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}> {
  const redis = await redisModules();
  redis.parseRedisUrl(store);
  const client = openRedis(redis, store, log);
  return {
    keys: redis.createVirtualKeys(client),
    ready: (timeoutMs) => redis.redisReady(client, timeoutMs),
    close: () => redis.closeRedisConnection(client),
  };
}
