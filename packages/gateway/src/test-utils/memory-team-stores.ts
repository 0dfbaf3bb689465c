/**
 * A team gateway's shared stores in memory, for tests of what replicas do with them (several
 * gateways in one test process sharing one set). Same contract as the Redis stores
 * (state/redis/): a conditional append that one writer wins, `since`, owners; `delay` and
 * `failing` play a slow or unreachable store.
 */
import * as path from 'node:path';
import {
  DecisionConflictError,
  type ConversationMeta,
  type ConversationStore,
  type DecisionRecord,
  type SharedOutputStore,
  type UsageStore,
} from '../state/stores.js';
import type { UsageRecord } from '../usage/usage-record.js';

export interface MemoryTeamStores {
  conversations: ConversationStore;
  usage: UsageStore;
  outputs: SharedOutputStore;
  /** Every command waits this long first (ms). */
  delay: number;
  /** Every command fails while set. */
  failing: boolean;
  /** Appends that lost the race, for assertions. */
  conflicts: number;
  /** Forgets every conversation's decisions (a Redis restarted without persistence). */
  loseDecisions(): void;
  /** How many decisions the store holds, across conversations. */
  decisionCount(): number;
}

export function memoryTeamStores(root = '/team'): MemoryTeamStores {
  const decisions = new Map<string, DecisionRecord[]>();
  const metas = new Map<string, ConversationMeta>();
  const owners = new Map<string, string>();
  const records: UsageRecord[] = [];
  const files = new Map<string, { bytes: Buffer; at: number }>();
  const state: MemoryTeamStores = {
    delay: 0,
    failing: false,
    conflicts: 0,
    loseDecisions: () => decisions.clear(),
    decisionCount: () => [...decisions.values()].reduce((sum, list) => sum + list.length, 0),
    conversations: undefined as unknown as ConversationStore,
    usage: undefined as unknown as UsageStore,
    outputs: undefined as unknown as SharedOutputStore,
  };
  const command = async () => {
    if (state.delay > 0) await new Promise((resolve) => setTimeout(resolve, state.delay));
    if (state.failing) throw new Error('the team store cannot be reached (test)');
  };
  // Records travel as JSON, as they do through Redis: no object is shared between replicas.
  const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
  state.conversations = {
    async load(id) {
      await command();
      const meta = metas.get(id);
      return { decisions: copy(decisions.get(id) ?? []), ...(meta ? { meta: copy(meta) } : {}) };
    },
    async appendDecisions(id, appended, expectedCount) {
      await command();
      const list = decisions.get(id) ?? [];
      if (expectedCount !== undefined && list.length !== expectedCount) {
        state.conflicts++;
        throw new DecisionConflictError(id, list.length);
      }
      decisions.set(id, [...list, ...copy(appended)]);
    },
    async saveMeta(id, meta) {
      await command();
      metas.set(id, copy(meta));
    },
    async prune() {
      await command();
      return 0;
    },
    async since(id, known) {
      await command();
      const meta = metas.get(id);
      return {
        decisions: copy((decisions.get(id) ?? []).slice(known)),
        ...(meta ? { meta: copy(meta) } : {}),
      };
    },
    async claimOwner(id, owner) {
      await command();
      if (!owners.has(id)) owners.set(id, owner);
      return owners.get(id) as string;
    },
    async ownerOf(id) {
      await command();
      return owners.get(id);
    },
  };
  state.usage = {
    async append(record) {
      await command();
      records.push(copy(record));
    },
    async list(query = {}) {
      await command();
      return records
        .filter((record) => query.sinceMs === undefined || record.at >= query.sinceMs)
        .filter((record) => !query.conversationId || record.conversationId === query.conversationId)
        .filter((record) => query.owner === undefined || record.owner === query.owner)
        .sort((a, b) => a.at - b.at);
    },
    async prune() {
      await command();
      return 0;
    },
  };
  state.outputs = {
    root,
    async save(directory, fileName, text) {
      await command();
      const full = path.join(directory, fileName);
      files.set(path.relative(root, full), { bytes: Buffer.from(text, 'utf8'), at: Date.now() });
      return full;
    },
    async read(relative) {
      await command();
      return files.get(relative)?.bytes;
    },
    async prune() {
      await command();
      return 0;
    },
  };
  return state;
}
