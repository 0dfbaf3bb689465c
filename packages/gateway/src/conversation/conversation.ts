/**
 * One conversation as the gateway sees it: the client resends its whole unmasked history with
 * every request, and the gateway must send the same masked bytes for every output it masked
 * before, so the provider's prefix cache keeps hitting.
 *
 * Per request (`prepareInTurn`, one at a time per conversation: its task queue):
 * 1. Entries equal to the previous request's are replaced by what was sent for them last time
 *    (sent-history.ts): the same objects, so core's ledger and estimate caches hit and the pass
 *    costs what is new.
 * 2. New entries get the conversation's recorded decisions (decision-log.ts): an output masked
 *    before is replaced by its recorded snippet, byte for byte; one kept whole before stays whole
 *    and uncounted.
 * 3. The masking middleware runs (the same as in every host), with the request's own settings
 *    and read-back tool name, and its protocol's cache economics: the content being sent is the
 *    last entry; the cold signal is the idle gap (the protocol's, unless the gateway set one)
 *    since the last answer, or the provider's own report that nothing of the last prompt was
 *    cached (cache-cold.ts).
 * 4. New decisions are saved (durable-decisions.ts): on a shared store before the request is
 *    forwarded (if that fails, the request goes out without them, and the next one tries again:
 *    a decision is never used unsaved there); on a store only this gateway writes, after it is
 *    sent (`writeDecisions`), used at once.
 *
 * After a restart, the recorded decisions and the last answer's state are loaded again, so the
 * requests that follow carry exactly the bytes they would have carried. What other writers of the
 * store did is the injected sync's (conversation-sync.ts): nothing for a store only this gateway
 * writes; on a shared store, the catch-up before each pass and the conditional append, with the
 * pass run again when another replica decided first (shared-store-sync.ts). What is kept in
 * memory between requests, and counted for the memory bound, is conversation-memory.ts's.
 */
import {
  ToolOutputMaskingService,
  createMaskingMiddleware,
  searchToolNameBeside,
  type Content,
  type MaskingHost,
  type MaskingMiddleware,
  type ToolOutputMaskingEvent,
} from '@toolmask/core';
import { sessionDirectory, type ToolOutputStore } from '@toolmask/core/storage';
import { eventLoopPauser } from '@toolmask/core/utils';
import type { BodyReaders } from '../body/body-readers.js';
import type { FailedOutputWrites } from '../state/outputs/queued-output-store.js';
import type { ConversationMeta, ConversationStore } from '../state/stores.js';
import { metaAfterAnswer, providerCacheCold, type PromptUsage } from './cache-cold.js';
import { ConversationMemory } from './conversation-memory.js';
import type {
  ConversationSync,
  SaveDecisions,
  StoreLookAhead,
  SyncedConversation,
} from './conversation-sync.js';
import { decisionsOfPass } from './decision-log.js';
import { DurableDecisions } from './durable-decisions.js';
import { changedFrom } from './sent-history.js';
import { TaskQueue } from './task-queue.js';
import type { PrepareOptions, PreparedRequest } from './prepared-request.js';
import { groupToolRuns, type ToolRunCache } from './tool-runs.js';

export interface ConversationOptions {
  id: string;
  /** The session id (the conversation id) and output folder of the pass. */
  host: MaskingHost;
  store: ConversationStore;
  /** How it agrees with the store's other writers (conversation-sync.ts). */
  sync: ConversationSync;
  outputs: ToolOutputStore;
  /**
   * The same store when its writes are queued (a single gateway): the writes into this
   * conversation's folder that failed are queued again by its next request, which carries them.
   */
  queuedOutputs?: FailedOutputWrites;
  /** The read-back tool as the client's model sees it, unless its requests declare it (readToolName). */
  readToolName: string;
  /** `/mcp` offers `search_tool_outputs`: snippets name it beside the read-back tool. */
  offersSearch?: boolean;
  /**
   * Idle time after which a new prompt counts as cache-cold, for every protocol (the gateway's
   * option). @default each request's protocol's (`PrepareOptions.cache`, prepared-request.ts)
   */
  idleGapMs?: number;
  now: () => number;
  /** Telemetry sink of the pass (the gateway adds its attributes). */
  telemetry: (event: ToolOutputMaskingEvent) => void;
  debug: (message: string) => void;
}

export class Conversation {
  readonly id: string;
  meta?: ConversationMeta;
  private readonly queue = new TaskQueue();
  private readonly service: ToolOutputMaskingService;
  private readonly middleware: MaskingMiddleware;
  private readonly decisions: DurableDecisions;
  /** Parallel tool results grouped as one turn for the pass (tool-runs.ts). */
  private readonly toolRuns: ToolRunCache = new WeakMap();
  /** What is kept between requests (the memory bound). */
  private readonly memory = new ConversationMemory();
  /** The read-back tool's name as the client last declared it (see `readToolName`). */
  private declaredReadTool?: string;
  /** What the sync works on: this conversation. */
  private readonly synced: SyncedConversation;

  constructor(private readonly options: ConversationOptions) {
    this.id = options.id;
    this.service = new ToolOutputMaskingService({
      store: options.outputs,
      telemetry: options.telemetry,
      debug: options.debug,
      readToolName: options.readToolName,
    });
    this.middleware = createMaskingMiddleware(this.service, {
      host: options.host,
      ...(options.idleGapMs !== undefined ? { idleGapMs: options.idleGapMs } : {}),
      debug: options.debug,
      _internal: { now: options.now },
    });
    this.decisions = new DurableDecisions({
      id: options.id,
      store: options.store,
      service: this.service,
      adoptMeta: (meta) => this.adoptMeta(meta),
      debug: options.debug,
    });
    this.synced = this.syncedView();
  }

  /** Its bodies' incremental readers (body/). */
  get bodies(): BodyReaders {
    return this.memory.bodies;
  }

  /** Approximate bytes of the history this conversation keeps between requests. */
  get retainedBytes(): number {
    return this.memory.retainedBytes;
  }

  /**
   * Whether the answer's end waits for this conversation's state after it (a shared store: the
   * next request may reach another replica).
   */
  get stateBeforeAnswerEnds(): boolean {
    return this.options.sync.stateBeforeAnswerEnds;
  }

  /** Runs `task` after every earlier task of this conversation has finished (one request at a time). */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    return this.queue.run(task);
  }

  /**
   * The read-back tool as this conversation's model knows it: the name a request declares, else
   * the one an earlier request declared (a side request without tools, such as a client's
   * next-speaker check, still names the tool the model has); undefined: the gateway's default.
   */
  readToolName(declared: string | undefined): string | undefined {
    if (declared) this.declaredReadTool = declared;
    return this.declaredReadTool;
  }

  /** Whether an output of this conversation was masked before (its decisions loaded). */
  async hasMaskedOutputs(): Promise<boolean> {
    await this.decisions.load();
    return this.decisions.hasMasked;
  }

  /**
   * The contents with what is already decided applied, without a pass and without changing any
   * state: what `countTokens` should count.
   */
  async preview(incoming: Content[]): Promise<{ contents: Content[]; changedIndices: number[] }> {
    await this.decisions.load();
    await this.options.sync.catchUp(this.synced);
    const pause = eventLoopPauser();
    const { applied, interned } = await this.memory.history.apply(
      incoming,
      this.decisions.log,
      pause,
    );
    return {
      contents: applied,
      changedIndices: await changedFrom(applied, incoming, interned, pause),
    };
  }

  /**
   * Appends the decisions in use not yet written (a store only this gateway writes: after the
   * request is sent, from the pipeline). Never rejects: a failure is reported and tried again.
   */
  writeDecisions(): Promise<void> {
    return this.decisions.writeUsed();
  }

  /** The answer to a request ended: the idle gap counts from now; the usage is remembered. */
  async finish(usage: PromptUsage, meta: ConversationMeta) {
    // The request's decisions are on disk before the state after its answer.
    await this.decisions.writeUsed();
    const endedAt = this.options.now();
    this.middleware.requestEnded(endedAt);
    this.meta = metaAfterAnswer(meta, usage, endedAt);
    await this.options.store.saveMeta(this.id, this.meta);
  }

  /**
   * Forgets the history kept between requests (memory pressure); decisions stay. A task of this
   * conversation under way (a pass between reading its body and writing it) keeps the history it
   * works on: it is forgotten when the task ends.
   */
  releaseHistory(): void {
    this.queue.whenIdle(() => {
      this.memory.forget();
      this.service.forgetHistory();
    });
  }

  /**
   * Starts the catch-up read of a shared store, so that its round trip overlaps the decoding of
   * the body; `prepareInTurn` takes it (`PrepareOptions.lookAhead`). Only in the conversation's
   * turn (undefined when there is nothing to read ahead: the pass reads the store itself).
   */
  lookAhead(): StoreLookAhead | undefined {
    return this.options.sync.lookAhead(this.synced);
  }

  /**
   * Masks one request's conversation. Only from inside `exclusive` (one request at a time; the
   * pipeline decodes the body in the same turn).
   */
  async prepareInTurn(incoming: Content[], options: PrepareOptions): Promise<PreparedRequest> {
    await this.decisions.load();
    // The last request's decisions, if nobody appended them yet (or their append failed).
    await this.decisions.writeUsed();
    if (this.options.queuedOutputs?.failedCount) {
      const { host } = this.options;
      this.options.queuedOutputs.retryFailed(
        sessionDirectory(host.storage.getProjectTempDir(), host.getSessionId()),
      );
    }
    const { prepared, storeBehind } = await this.options.sync.agree(
      this.synced,
      (save) => this.prepareOnce(incoming, options, save),
      options.lookAhead,
    );
    return storeBehind ? { ...prepared, storeBehind: true } : prepared;
  }

  /** One try of `prepareInTurn`; undefined when `save` says the pass is to run again. */
  private async prepareOnce(
    incoming: Content[],
    options: PrepareOptions,
    save: SaveDecisions,
  ): Promise<PreparedRequest | undefined> {
    const pause = eventLoopPauser();
    const { history } = this.memory;
    const { log } = this.decisions;
    const known = await history.apply(incoming, log, pause, options.sentBefore);
    const { applied, interned, common } = known;
    const turns = groupToolRuns(applied, this.toolRuns);
    const last = turns.contents.length - 1;
    const readName = options.readToolName ?? this.options.readToolName;
    const searchToolName = this.options.offersSearch ? searchToolNameBeside(readName) : undefined;
    const masked = await this.middleware.transformRequest({
      history: last > 0 ? turns.contents.slice(0, last) : [],
      request: (turns.contents[last] ?? { role: 'user', parts: [] }) as Content,
      config: options.config,
      ...(options.readToolName ? { readToolName: options.readToolName } : {}),
      ...(searchToolName ? { searchToolName } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.cache ? { cache: options.cache } : {}),
      cacheLikelyCold: providerCacheCold(this.meta),
    });
    const turnsSent = last >= 0 ? [...masked.history, masked.request] : [];
    const pass = { before: turns.contents, after: turnsSent, result: masked.result };
    const records = await decisionsOfPass(pass, this.options.now(), pause);
    const saving = await save({ records, result: masked.result, pause });
    if (saving === 'again') return undefined;

    const contents = saving.saved ? turns.ungroup(turnsSent) : applied;
    const differs: number[] = [];
    const changedIndices = await changedFrom(contents, incoming, interned, pause, differs);
    if (options.keptAsSent) {
      for (const index of changedIndices) interned[index] = contents[index] as Content;
    }
    const tally = await history.tally(contents, { common, changed: changedIndices }, log, pause);
    history.remember(interned, contents, tally);
    this.memory.keptWholeBody(options.retainedBytes ?? 0);
    return {
      contents,
      changedIndices,
      differs,
      result: masked.result,
      cacheLikelyCold: masked.cacheLikelyCold,
      ...tally,
      unsavedDecisions: saving.unsavedDecisions,
    };
  }

  /** The state after the last answer, as the store has it. */
  private adoptMeta(meta: ConversationMeta): void {
    this.meta = meta;
    if (meta.lastEndedAt !== undefined) this.middleware.requestEnded(meta.lastEndedAt);
  }

  /** This conversation as its sync sees it. */
  private syncedView(): SyncedConversation {
    return {
      id: this.id,
      decisions: this.decisions,
      currentMeta: () => this.meta,
      adoptMeta: (meta) => this.adoptMeta(meta),
      // Decisions from elsewhere: what was sent for an entry may differ now (decisions and
      // outputs kept whole stay known).
      forgetHistory: () => {
        this.memory.history.clear();
        this.service.forgetHistory();
      },
      debug: this.options.debug,
    };
  }
}
