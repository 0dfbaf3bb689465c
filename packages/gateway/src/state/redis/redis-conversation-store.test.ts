import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import {
  redisAvailable,
  startRedisServer,
  type RedisServer,
} from '@toolmask/test-support/redis-server';
import { DecisionConflictError, type ConversationMeta, type DecisionRecord } from '../stores.js';
import { closeRedisConnection, openRedisConnection, redisReady } from './redis-connection.js';
import { createRedisConversationStore } from './redis-conversation-store.js';
import { describeConversationStore } from '../../test-utils/conversation-store-contract.js';

const ID = '0123456789abcdef0123456789abcdef';
const OTHER = 'fedcba9876543210';
const DAY_MS = 86_400_000;
const available = redisAvailable('Redis conversation store tests');

const masked = (key: string, at = 1_700_000_000_000): DecisionRecord => ({
  kind: 'masked',
  key,
  toolName: 'run_shell_command',
  callId: `call-${key}`,
  response: { output: `[masked: ${key}] first lines…` },
  filePath: `/state/tool-outputs/session-${ID}/run_shell_command.${key}.0123456789abcdef.txt`,
  bytes: 48_000,
  tokensBefore: 12_000,
  tokensAfter: 120,
  at,
});
const kept = (key: string): DecisionRecord => ({
  kind: 'kept',
  key,
  toolName: 'read_file',
  callId: `call-${key}`,
  at: 1_700_000_000_500,
});
const meta: ConversationMeta = {
  startedAt: 1_700_000_000_000,
  lastEndedAt: 1_700_000_060_000,
  lastPromptTokens: 52_000,
  lastCachedTokens: 48_000,
  client: 'gemini-cli',
  model: 'gemini-2.5-pro',
};

describe.skipIf(!available)('the Redis conversation store', () => {
  let server: RedisServer;
  let client: Redis;
  /** No prefix: sees the keys as Redis holds them. */
  let raw: Redis;
  const clients: Redis[] = [];
  // A generous command timeout: these tests are not about time, and may run on a busy machine.
  const connect = async (options: Parameters<typeof openRedisConnection>[1] = {}) => {
    const opened = openRedisConnection(server.url, { commandTimeoutMs: 2_000, ...options });
    clients.push(opened);
    expect(await redisReady(opened, 2_000)).toBe(true);
    return opened;
  };
  const keys = (id: string) =>
    ['decisions', 'meta', 'owner'].map((name) => `toolmask:conversation:{${id}}:${name}`);

  beforeAll(async () => {
    server = await startRedisServer();
    client = await connect();
    raw = await connect({ keyPrefix: '' });
  });
  beforeEach(async () => {
    await raw.flushall();
  });
  afterAll(async () => {
    for (const opened of clients) await closeRedisConnection(opened);
    await server?.close();
  });

  it('loads a conversation it never saw as empty, with no meta', async () => {
    const store = createRedisConversationStore(client, { retentionDays: 30 });
    expect(await store.load(ID)).toEqual({ decisions: [] });
    expect(await store.since!(ID, 0)).toEqual({ decisions: [] });
    expect(await store.ownerOf!(ID)).toBe(undefined);
  });

  it('keeps decisions in order, as compact JSON, and the meta beside them', async () => {
    const store = createRedisConversationStore(client, { retentionDays: 30 });
    const first = [masked('a'), kept('b')];
    await store.appendDecisions(ID, first);
    await store.appendDecisions(ID, [masked('c')]);
    await store.saveMeta(ID, meta);
    expect(await store.load(ID)).toEqual({ decisions: [...first, masked('c')], meta });
    const [decisionsKey, metaKey] = keys(ID);
    expect(await raw.lrange(decisionsKey!, 0, -1)).toEqual(
      [...first, masked('c')].map((record) => JSON.stringify(record)),
    );
    expect(await raw.get(metaKey!)).toBe(JSON.stringify(meta));
    // Another conversation is untouched.
    expect(await store.load(OTHER)).toEqual({ decisions: [] });
  });

  it('saves a newer meta over the older one', async () => {
    const store = createRedisConversationStore(client, { retentionDays: 30 });
    await store.saveMeta(ID, meta);
    const newer = { ...meta, lastEndedAt: meta.lastEndedAt! + 1_000, lastCachedTokens: 0 };
    await store.saveMeta(ID, newer);
    expect((await store.load(ID)).meta).toEqual(newer);
  });

  it('does not touch Redis for an unconditional append of nothing', async () => {
    const store = createRedisConversationStore(client, { retentionDays: 30 });
    await store.appendDecisions(ID, []);
    expect(await raw.keys('*')).toEqual([]);
  });

  it('appends with expectedCount only when the count matches', async () => {
    const store = createRedisConversationStore(client, { retentionDays: 30 });
    await store.appendDecisions(ID, [masked('a'), masked('b')], 0);
    await store.appendDecisions(ID, [kept('c')], 2);
    const conflict = await store.appendDecisions(ID, [masked('x')], 2).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(DecisionConflictError);
    expect(conflict).toMatchObject({ conversationId: ID, count: 3, code: 'DECISION_CONFLICT' });
    // A check of nothing: passes at the count, conflicts elsewhere, appends nothing either way.
    await store.appendDecisions(ID, [], 3);
    await expect(store.appendDecisions(ID, [], 1)).rejects.toMatchObject({ count: 3 });
    expect((await store.load(ID)).decisions).toEqual([masked('a'), masked('b'), kept('c')]);
  });

  it('appends thousands of decisions at once (more than one push per script)', async () => {
    const store = createRedisConversationStore(client, { retentionDays: 30 });
    const records = Array.from({ length: 2_500 }, (_, index) => masked(`k${index}`, index));
    await store.appendDecisions(ID, records, 0);
    const loaded = await store.load(ID);
    expect(loaded.decisions).toHaveLength(2_500);
    expect(loaded.decisions[2_499]).toEqual(records[2_499]);
    await expect(store.appendDecisions(ID, [masked('late')], 2_499)).rejects.toMatchObject({
      count: 2_500,
    });
  });

  it('gives, since a count, the decisions after it and the meta', async () => {
    const store = createRedisConversationStore(client, { retentionDays: 30 });
    await store.appendDecisions(ID, [masked('a'), kept('b'), masked('c')]);
    expect(await store.since!(ID, 1)).toEqual({ decisions: [kept('b'), masked('c')] });
    await store.saveMeta(ID, meta);
    expect(await store.since!(ID, 3)).toEqual({ decisions: [], meta });
    expect(await store.since!(ID, 10)).toEqual({ decisions: [], meta });
    await expect(store.since!(ID, -1)).rejects.toThrow(RangeError);
    await expect(store.since!(ID, 1.5)).rejects.toThrow(RangeError);
  });

  it('records the first owner claimed, and keeps it', async () => {
    const store = createRedisConversationStore(client, { retentionDays: 30 });
    expect(await store.claimOwner!(ID, 'user:alice')).toBe('user:alice');
    expect(await store.claimOwner!(ID, 'user:bob')).toBe('user:alice');
    expect(await store.ownerOf!(ID)).toBe('user:alice');
    const claims = await Promise.all(
      ['user:carol', 'user:dave', 'user:erin'].map((owner) => store.claimOwner!(OTHER, owner)),
    );
    expect(new Set(claims).size).toBe(1);
    expect(await store.ownerOf!(OTHER)).toBe(claims[0]);
  });

  it.each(['ABCDEF0123456789', 'abc', '../../etc', 'g123456789', `${ID}${ID}0`, ''])(
    'refuses the conversation id %j before asking Redis',
    async (id) => {
      const store = createRedisConversationStore(client, { retentionDays: 30 });
      await expect(store.load(id)).rejects.toThrow('not a conversation id');
      await expect(store.appendDecisions(id, [masked('a')])).rejects.toThrow(
        'not a conversation id',
      );
      await expect(store.saveMeta(id, meta)).rejects.toThrow('not a conversation id');
      await expect(store.since!(id, 0)).rejects.toThrow('not a conversation id');
      await expect(store.claimOwner!(id, 'user:a')).rejects.toThrow('not a conversation id');
      await expect(store.ownerOf!(id)).rejects.toThrow('not a conversation id');
      expect(await raw.keys('*')).toEqual([]);
    },
  );

  it('sets every key of the conversation to expire retentionDays after each write', async () => {
    const store = createRedisConversationStore(client, { retentionDays: 30 });
    const expectTtls = async (present: string[]) => {
      for (const key of present) {
        const ttl = await raw.pttl(key);
        expect(ttl).toBeGreaterThan(30 * DAY_MS - 60_000);
        expect(ttl).toBeLessThanOrEqual(30 * DAY_MS);
      }
    };
    const [decisionsKey, metaKey, ownerKey] = keys(ID) as [string, string, string];
    await store.appendDecisions(ID, [masked('a')]);
    await expectTtls([decisionsKey]);
    await store.claimOwner!(ID, 'user:alice');
    await store.saveMeta(ID, meta);
    await expectTtls([decisionsKey, metaKey, ownerKey]);
    // A key with a shorter time left gets the whole retention again with the next write.
    await raw.pexpire(ownerKey, 5_000);
    await raw.pexpire(decisionsKey, 5_000);
    await store.appendDecisions(ID, [kept('b')], 1);
    await expectTtls([decisionsKey, metaKey, ownerKey]);
    // A losing append is no write.
    await raw.pexpire(metaKey, 5_000);
    await expect(store.appendDecisions(ID, [kept('c')], 0)).rejects.toThrow(DecisionConflictError);
    expect(await raw.pttl(metaKey)).toBeLessThanOrEqual(5_000);

    // retentionDays 0: no expiry, and a write takes off the expiry a key had.
    const forever = createRedisConversationStore(client, { retentionDays: 0 });
    await forever.saveMeta(ID, meta);
    for (const key of keys(ID)) expect(await raw.pttl(key)).toBe(-1);
  });

  it('refuses a negative retention', () => {
    expect(() => createRedisConversationStore(client, { retentionDays: -1 })).toThrow(RangeError);
  });

  it('leaves pruning to Redis expiry: prune removes nothing', async () => {
    const store = createRedisConversationStore(client, { retentionDays: 30 });
    await store.appendDecisions(ID, [masked('a')]);
    expect(await store.prune(Date.now() + DAY_MS, new Set())).toBe(0);
    expect((await store.load(ID)).decisions).toHaveLength(1);
  });

  it('counts a record it cannot read as a decision about nothing, and says so', async () => {
    const warnings: string[] = [];
    const store = createRedisConversationStore(client, {
      retentionDays: 30,
      onWarning: (message) => warnings.push(message),
    });
    await store.appendDecisions(ID, [masked('a')]);
    const [decisionsKey, metaKey] = keys(ID) as [string, string];
    await raw.rpush(decisionsKey, 'not json', JSON.stringify({ kind: 'masked', key: 'x' }));
    await store.appendDecisions(ID, [kept('d')], 3);
    await raw.set(metaKey, '{broken');
    const loaded = await store.load(ID);
    expect(loaded.decisions).toHaveLength(4);
    expect(loaded.decisions[0]).toEqual(masked('a'));
    expect(loaded.decisions[1]).toEqual({
      kind: 'kept',
      key: '',
      toolName: '',
      callId: '',
      at: 0,
    });
    expect(loaded.decisions[3]).toEqual(kept('d'));
    expect(loaded.meta).toBe(undefined);
    expect(warnings).toEqual([
      `redis conversation ${ID}: decision 1 is not a decision record; ignored`,
      `redis conversation ${ID}: decision 2 is not a decision record; ignored`,
      `redis conversation ${ID}: meta is not JSON; ignored`,
    ]);
    // Positions stay those of the list: since(4) is up to date.
    expect((await store.since!(ID, 4)).decisions).toEqual([]);
  });

  it('lets exactly one of two replicas appending at once win, every round', async () => {
    const replicas = [
      createRedisConversationStore(await connect(), { retentionDays: 30 }),
      createRedisConversationStore(await connect(), { retentionDays: 30 }),
    ] as const;
    const wins = [0, 0];
    let count = 0;
    for (let round = 0; round < 200; round++) {
      // Replica 0 decides one output, replica 1 two: the loser's count tells which won.
      const batches = [[masked(`r${round}-a`)], [kept(`r${round}-b`), masked(`r${round}-c`)]];
      // Who sends first alternates, so either can reach Redis first.
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      const outcomes: Array<Promise<unknown>> = [];
      for (const index of order) {
        outcomes[index] = replicas[index as 0 | 1].appendDecisions(ID, batches[index]!, count).then(
          () => 'won',
          (error: unknown) => error,
        );
      }
      const [first, second] = await Promise.all(outcomes);
      const winner = first === 'won' ? 0 : 1;
      const loserOutcome = winner === 0 ? second : first;
      expect([first, second].filter((outcome) => outcome === 'won')).toHaveLength(1);
      expect(loserOutcome).toBeInstanceOf(DecisionConflictError);
      expect(loserOutcome).toMatchObject({
        conversationId: ID,
        count: count + batches[winner]!.length,
      });
      // The loser catches up and finds exactly the winner's decisions.
      const update = await replicas[winner === 0 ? 1 : 0].since!(ID, count);
      expect(update.decisions).toEqual(batches[winner]);
      count += batches[winner]!.length;
      wins[winner]!++;
    }
    expect((await replicas[0].load(ID)).decisions).toHaveLength(count);
    expect(wins[0]).toBeGreaterThan(0);
    expect(wins[1]).toBeGreaterThan(0);
  });
});

describe.skipIf(!available)('the Redis conversation store while Redis is away', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('rejects within about the command timeout, and works again once Redis is back', async () => {
    const client = openRedisConnection(server.url, { commandTimeoutMs: 250 });
    try {
      expect(await redisReady(client, 2_000)).toBe(true);
      const store = createRedisConversationStore(client, { retentionDays: 30 });
      await store.appendDecisions(ID, [masked('a')], 0);

      // Frozen: each call waits for the command timeout, no more.
      server.pause();
      let started = performance.now();
      await expect(store.since!(ID, 1)).rejects.toThrow(/timed out/i);
      expect(performance.now() - started).toBeLessThan(1_000);
      server.resume();

      // Gone: each call rejects at once.
      await server.stop({ keepData: true });
      for (const call of [
        () => store.load(ID),
        () => store.appendDecisions(ID, [masked('b')], 1),
        () => store.saveMeta(ID, meta),
        () => store.claimOwner!(ID, 'user:alice'),
      ]) {
        started = performance.now();
        await expect(call()).rejects.toThrow();
        expect(performance.now() - started).toBeLessThan(1_000);
      }

      // Back on the same port: the same client, the same store.
      await server.restart();
      expect(await redisReady(client, 3_000)).toBe(true);
      expect((await store.load(ID)).decisions).toEqual([masked('a')]);
      await store.appendDecisions(ID, [masked('b')], 1);
      expect((await store.since!(ID, 1)).decisions).toEqual([masked('b')]);
    } finally {
      await closeRedisConnection(client);
    }
  });
});

describe.skipIf(!available)('the Redis conversation store, held to the contract', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  describeConversationStore('redis', async () => {
    // A fresh key space per test: its own prefix.
    const client = openRedisConnection(server.url, {
      commandTimeoutMs: 2_000,
      keyPrefix: `contract-${randomBytes(6).toString('hex')}:`,
    });
    expect(await redisReady(client, 2_000)).toBe(true);
    return {
      store: createRedisConversationStore(client, { retentionDays: 30 }),
      cleanup: () => closeRedisConnection(client),
    };
  });
});
