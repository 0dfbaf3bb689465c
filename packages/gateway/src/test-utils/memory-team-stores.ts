/**
 * A team gateway's shared stores in memory, for tests of what replicas do with them (several
 * gateways in one test process sharing one set). The same contracts as the Redis stores
 * (state/redis/; test-utils/conversation-store-contract.ts holds this one to it): a conditional
 * append that one writer wins, `since`, owners; `delay` and `failing` play a slow or unreachable
 * store. Records travel as JSON copies, as they do through Redis: no object is shared between
 * replicas.
 */
import * as path from 'node:path';
import {
  DecisionConflictError,
  checkCount,
  type ConversationMeta,
  type ConversationStore,
  type ConversationUpdate,
  type DecisionRecord,
  type SharedOutputStore,
  type StoredConversation,
  type UsageQuery,
  type UsageStore,
} from '../state/stores.js';
import type { UsageRecord } from '../usage/usage-record.js';

const SAFE_ID = /^[0-9a-f]{8,64}$/;

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** What every command of the three stores goes through: the test's switches. */
class Backend {
  /** Every command waits this long first (ms). */
  delay = 0;
  /** Every command fails while set. */
  failing = false;
  /** Appends that lost the race, for assertions. */
  conflicts = 0;

  async command(): Promise<void> {
    if (this.delay > 0) await new Promise((resolve) => setTimeout(resolve, this.delay));
    if (this.failing) throw new Error('the team store cannot be reached (test)');
  }
}

class MemoryConversationStore implements ConversationStore {
  readonly decisions = new Map<string, DecisionRecord[]>();
  private readonly metas = new Map<string, ConversationMeta>();
  private readonly owners = new Map<string, string>();

  constructor(private readonly backend: Backend) {}

  async load(id: string): Promise<StoredConversation> {
    return this.since(id, 0);
  }

  async since(id: string, known: number): Promise<ConversationUpdate> {
    checkId(id);
    checkCount('known', known);
    await this.backend.command();
    const meta = this.metas.get(id);
    return {
      decisions: copy((this.decisions.get(id) ?? []).slice(known)),
      ...(meta ? { meta: copy(meta) } : {}),
    };
  }

  async appendDecisions(
    id: string,
    appended: readonly DecisionRecord[],
    expectedCount?: number,
  ): Promise<void> {
    checkId(id);
    if (expectedCount !== undefined) checkCount('expectedCount', expectedCount);
    await this.backend.command();
    const list = this.decisions.get(id) ?? [];
    if (expectedCount !== undefined && list.length !== expectedCount) {
      this.backend.conflicts++;
      throw new DecisionConflictError(id, list.length);
    }
    if (appended.length > 0) this.decisions.set(id, [...list, ...copy(appended)]);
  }

  async saveMeta(id: string, meta: ConversationMeta): Promise<void> {
    checkId(id);
    await this.backend.command();
    this.metas.set(id, copy(meta));
  }

  async claimOwner(id: string, owner: string): Promise<string> {
    checkId(id);
    await this.backend.command();
    if (!this.owners.has(id)) this.owners.set(id, owner);
    return this.owners.get(id) as string;
  }

  async ownerOf(id: string): Promise<string | undefined> {
    checkId(id);
    await this.backend.command();
    return this.owners.get(id);
  }

  // Like Redis, a store that expires on its own: nothing to prune.
  async prune(): Promise<number> {
    await this.backend.command();
    return 0;
  }
}

/** A conversation id as the real stores take them (hex digests), or an error before any command. */
function checkId(id: string): void {
  if (!SAFE_ID.test(id)) throw new Error(`not a conversation id: ${JSON.stringify(id)}`);
}

class MemoryUsageStore implements UsageStore {
  private readonly records: UsageRecord[] = [];

  constructor(private readonly backend: Backend) {}

  async append(record: UsageRecord): Promise<void> {
    await this.backend.command();
    this.records.push(copy(record));
  }

  async list(query: UsageQuery = {}): Promise<UsageRecord[]> {
    await this.backend.command();
    return this.records
      .filter((record) => query.sinceMs === undefined || record.at >= query.sinceMs)
      .filter((record) => !query.conversationId || record.conversationId === query.conversationId)
      .filter((record) => query.owner === undefined || record.owner === query.owner)
      .sort((a, b) => a.at - b.at);
  }

  async prune(): Promise<number> {
    await this.backend.command();
    return 0;
  }
}

class MemoryOutputStore implements SharedOutputStore {
  private readonly files = new Map<string, { bytes: Buffer; at: number }>();

  constructor(
    private readonly backend: Backend,
    readonly root: string,
  ) {}

  async save(directory: string, fileName: string, text: string): Promise<string> {
    await this.backend.command();
    const full = path.join(directory, fileName);
    this.files.set(path.relative(this.root, full), {
      bytes: Buffer.from(text, 'utf8'),
      at: Date.now(),
    });
    return full;
  }

  async read(relative: string): Promise<Buffer | undefined> {
    await this.backend.command();
    return this.files.get(relative)?.bytes;
  }

  async prune(): Promise<number> {
    await this.backend.command();
    return 0;
  }

  async close(): Promise<void> {}
}

class MemoryOwnerProofs {
  private readonly proven = new Set<string>();

  constructor(private readonly backend: Backend) {}

  async has(owner: string): Promise<boolean> {
    await this.backend.command();
    return this.proven.has(owner);
  }

  async prove(owner: string): Promise<void> {
    await this.backend.command();
    this.proven.add(owner);
  }

  async forget(owner: string): Promise<void> {
    await this.backend.command();
    this.proven.delete(owner);
  }
}

/** The three stores over one backend, and the test's switches. */
export class MemoryTeamStores {
  private readonly backend = new Backend();
  private readonly memoryConversations = new MemoryConversationStore(this.backend);
  readonly conversations: ConversationStore = this.memoryConversations;
  readonly usage: UsageStore = new MemoryUsageStore(this.backend);
  readonly outputs: SharedOutputStore;
  /** Which owners the provider accepted, shared like the rest (team/owner-ledger.ts). */
  readonly proofs = new MemoryOwnerProofs(this.backend);

  constructor(root: string) {
    this.outputs = new MemoryOutputStore(this.backend, root);
  }

  /** Every command waits this long first (ms). */
  get delay(): number {
    return this.backend.delay;
  }
  set delay(ms: number) {
    this.backend.delay = ms;
  }

  /** Every command fails while set. */
  get failing(): boolean {
    return this.backend.failing;
  }
  set failing(failing: boolean) {
    this.backend.failing = failing;
  }

  /** Appends that lost the race, for assertions. */
  get conflicts(): number {
    return this.backend.conflicts;
  }

  /** Forgets every conversation's decisions (a Redis restarted without persistence). */
  loseDecisions(): void {
    this.memoryConversations.decisions.clear();
  }

  /** How many decisions the store holds, across conversations. */
  decisionCount(): number {
    let count = 0;
    for (const list of this.memoryConversations.decisions.values()) count += list.length;
    return count;
  }
}

export function memoryTeamStores(root = '/team'): MemoryTeamStores {
  return new MemoryTeamStores(root);
}
