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
 *    cached.
 * 4. New decisions are appended to the store before the request is forwarded. If that fails, the
 *    request goes out without them (the next one tries again): a decision is never used unsaved.
 *
 * After a restart, the recorded decisions and the last answer's time and usage are loaded again,
 * so the requests that follow carry exactly the bytes they would have carried.
 *
 * On a shared store (a team gateway's replicas), other gateways serve the same conversation too.
 * Before each pass, the conversation catches up with the store in one round trip (`since`): the
 * decisions others appended and the last answer's state. New decisions from elsewhere make the
 * history kept between requests stale (an entry sent whole then may be masked now), so it is let
 * go and the pass measures the request anew, as after a restart. Its own decisions are appended
 * only if nobody appended since it caught up (`expectedCount`); when another replica won that
 * race (a client's retry landing elsewhere), it catches up again and runs its pass again over
 * the winner's decisions: both send the same bytes.
 */
import { describeError } from '@toolmask/core/errors';
import {
  ToolOutputMaskingService,
  createMaskingMiddleware,
  type CacheEconomics,
  type Content,
  type MaskingHost,
  type MaskingMiddleware,
  type MaskingResult,
  type ToolOutputMaskingConfig,
  type ToolOutputMaskingEvent,
} from '@toolmask/core';
import type { ToolOutputStore } from '@toolmask/core/storage';
import { eventLoopPauser, type EventLoopPauser } from '@toolmask/core/utils';
import { BodyReaders } from '../body/body-readers.js';
import {
  DecisionConflictError,
  type ConversationMeta,
  type ConversationStore,
  type ConversationUpdate,
  type DecisionRecord,
} from '../state/stores.js';
import { DecisionLog, decisionsOfPass } from './decision-log.js';
import { SentHistory, changedFrom } from './sent-history.js';
import { TaskQueue } from './task-queue.js';
import { groupToolRuns, type ToolRunCache } from './tool-runs.js';

/** A prompt this large that the provider cached none of: it is not caching this conversation. */
export const MIN_CACHEABLE_PROMPT_TOKENS = 4_096;

/**
 * Decisions appended to the store in one write: serializing 150,000 at once would hold the event
 * loop for a few hundred milliseconds.
 */
const DECISIONS_PER_APPEND = 2_000;

/**
 * Passes run again after losing the race to append (a shared store): each loss means another
 * replica appended in between, so a few tries settle any client's retries; after them, the
 * request goes without new decisions.
 */
const MAX_APPEND_TRIES = 3;

export interface ConversationOptions {
  id: string;
  /** The session id (the conversation id) and output folder of the pass. */
  host: MaskingHost;
  store: ConversationStore;
  outputs: ToolOutputStore;
  /** The read-back tool as the client's model sees it, unless its requests declare it (readToolName). */
  readToolName: string;
  /**
   * Idle time after which a new prompt counts as cache-cold, for every protocol (the gateway's
   * option). @default each request's protocol's (`PrepareOptions.cache`)
   */
  idleGapMs?: number;
  now: () => number;
  /** Telemetry sink of the pass (the gateway adds its attributes). */
  telemetry: (event: ToolOutputMaskingEvent) => void;
  debug: (message: string) => void;
}

export interface PrepareOptions {
  /** The masking settings as read for this request. */
  config: ToolOutputMaskingConfig;
  signal?: AbortSignal;
  /** The read-back tool as this request declares it (named in new snippets). */
  readToolName?: string;
  /**
   * The cache economics of the request's protocol: the pass's warm trigger weighs a break at its
   * prices, and its idle gap is the cold signal's (unless the gateway set `idleGapMs`).
   */
  cache?: Readonly<CacheEconomics>;
  /**
   * `incoming` comes from an incremental reader, which keeps what is sent for an entry in place
   * of the client's version (body/incremental-body.ts): the conversation does the same, so a
   * masked output's whole text is let go as soon as the request is written. Otherwise the
   * request's bytes are kept until the next one (counted for the memory bound).
   */
  keptAsSent?: boolean;
  /** Bytes of a request read whole, for the memory bound. */
  retainedBytes?: number;
  /** The catch-up read started before the body was decoded (`lookAhead`), in this turn. */
  lookAhead?: StoreLookAhead;
}

/** A catch-up read under way: what a shared store holds past the first `known` decisions. */
export interface StoreLookAhead {
  known: number;
  update: Promise<ConversationUpdate>;
}

export interface PreparedRequest {
  /** The contents to send. */
  contents: Content[];
  /**
   * Entries of `contents` that differ from `incoming` (an entry that came as what was sent for it
   * last time is not among them: body/incremental-body.ts writes it from what it wrote).
   */
  changedIndices: number[];
  result: MaskingResult;
  cacheLikelyCold: boolean;
  /** Masked outputs in the request as sent, and the tokens they keep out (estimates). */
  maskedOutputs: number;
  tokensKeptOut: number;
  /** Decisions made by this request's pass that could not be saved (the request went without them). */
  unsavedDecisions: number;
  /**
   * A shared store could not be read before the pass: the request went with the decisions this
   * gateway knew, perhaps not all there are (counted as a failure).
   */
  storeBehind?: true;
}

export class Conversation {
  readonly id: string;
  meta?: ConversationMeta;
  /** Its bodies' incremental readers (body/). */
  readonly bodies = new BodyReaders();
  private readonly queue = new TaskQueue();
  private readonly service: ToolOutputMaskingService;
  private readonly middleware: MaskingMiddleware;
  private readonly decisions: DecisionLog;
  /** Parallel tool results grouped as one turn for the pass (tool-runs.ts). */
  private readonly toolRuns: ToolRunCache = new WeakMap();
  /** The previous request as it came and as it was sent. */
  private readonly history = new SentHistory();
  /** Decisions of the store this conversation knows: the first `known` of its records, in order. */
  private known = 0;
  /** Bytes of a request read whole (not by an incremental reader), kept until the next one. */
  private wholeBodyBytes = 0;
  /** The read-back tool's name as the client last declared it (see `readToolName`). */
  private declaredReadTool?: string;
  private loaded?: Promise<void>;
  /** The store's state is in memory (a catch-up reads only what came after it). */
  private isLoaded = false;

  constructor(private readonly options: ConversationOptions) {
    this.id = options.id;
    this.service = new ToolOutputMaskingService({
      store: options.outputs,
      telemetry: options.telemetry,
      debug: options.debug,
      readToolName: options.readToolName,
    });
    this.decisions = new DecisionLog(this.service);
    this.middleware = createMaskingMiddleware(this.service, {
      host: options.host,
      ...(options.idleGapMs !== undefined ? { idleGapMs: options.idleGapMs } : {}),
      debug: options.debug,
      _internal: { now: options.now },
    });
  }

  /** Approximate bytes of the history this conversation keeps between requests. */
  get retainedBytes(): number {
    return Math.max(this.wholeBodyBytes, this.bodies.retainedBytes);
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
    await this.load();
    return this.decisions.hasMasked;
  }

  /**
   * The contents with what is already decided applied, without a pass and without changing any
   * state: what `countTokens` should count.
   */
  async preview(incoming: Content[]): Promise<{ contents: Content[]; changedIndices: number[] }> {
    await this.load();
    await this.catchUp();
    const pause = eventLoopPauser();
    const { applied, interned } = await this.history.apply(incoming, this.decisions, pause);
    return {
      contents: applied,
      changedIndices: await changedFrom(applied, incoming, interned, pause),
    };
  }

  /** The answer to a request ended: the idle gap counts from now; the usage is remembered. */
  async finish(
    usage: { promptTokens?: number; cachedTokens?: number; cacheWriteTokens?: number },
    meta: ConversationMeta,
  ) {
    const endedAt = this.options.now();
    this.middleware.requestEnded(endedAt);
    this.meta = { ...meta, lastEndedAt: endedAt };
    if (usage.promptTokens !== undefined) this.meta.lastPromptTokens = usage.promptTokens;
    // What the provider holds in its cache after this answer: a prompt it wrote there (Anthropic
    // reports writes apart from reads) is cached for the next request, not a sign of a cold cache.
    if (usage.cachedTokens !== undefined) {
      this.meta.lastCachedTokens = usage.cachedTokens + (usage.cacheWriteTokens ?? 0);
    }
    await this.options.store.saveMeta(this.id, this.meta);
  }

  /**
   * Forgets the history kept between requests (memory pressure); decisions stay. A task of this
   * conversation under way (a pass between reading its body and writing it) keeps the history it
   * works on: it is forgotten when the task ends.
   */
  releaseHistory(): void {
    this.queue.whenIdle(() => {
      this.history.clear();
      this.wholeBodyBytes = 0;
      this.bodies.reset();
      this.service.forgetHistory();
    });
  }

  /**
   * Masks one request's conversation. Only from inside `exclusive` (one request at a time; the
   * pipeline decodes the body in the same turn).
   */
  /**
   * Starts the catch-up read of a shared store, so that its round trip overlaps the decoding of
   * the body; `prepareInTurn` takes it (`PrepareOptions.lookAhead`). Only in the conversation's
   * turn, and only once it is loaded (undefined otherwise: the pass reads the store itself).
   */
  lookAhead(): StoreLookAhead | undefined {
    const since = this.options.store.since;
    if (!since || !this.isLoaded) return undefined;
    const known = this.known;
    const update = since.call(this.options.store, this.id, known);
    // Awaited, and its failure handled, by `catchUp`; never an unhandled rejection meanwhile.
    update.catch(() => undefined);
    return { known, update };
  }

  async prepareInTurn(incoming: Content[], options: PrepareOptions): Promise<PreparedRequest> {
    for (let tries = 1; ; tries++) {
      await this.load();
      let behind = false;
      try {
        await this.catchUp(tries === 1 ? options.lookAhead : undefined);
      } catch (error) {
        // The shared store cannot be reached: the request goes with the decisions known here
        // (its own new ones cannot be saved either), and the next request catches up.
        behind = true;
        this.options.debug(
          `[toolmask gateway] conversation ${this.id}: could not catch up with the store; sent with the decisions known here: ${describeError(error)}`,
        );
      }
      const prepared = await this.prepareOnce(incoming, options, tries < MAX_APPEND_TRIES);
      if (prepared) return behind ? { ...prepared, storeBehind: true } : prepared;
      // Another gateway appended first: the next catch-up takes its decisions (and lets the
      // history go), and the pass runs again over them.
      this.options.debug(
        `[toolmask gateway] conversation ${this.id}: another gateway decided first; the pass runs again over its decisions`,
      );
    }
  }

  /** One try of `prepareInTurn`; undefined when another gateway appended first and `retry` is allowed. */
  private async prepareOnce(
    incoming: Content[],
    options: PrepareOptions,
    retry: boolean,
  ): Promise<PreparedRequest | undefined> {
    const pause = eventLoopPauser();
    const { applied, interned } = await this.history.apply(incoming, this.decisions, pause);

    const turns = groupToolRuns(applied, this.toolRuns);
    const last = turns.contents.length - 1;
    const masked = await this.middleware.transformRequest({
      history: last > 0 ? turns.contents.slice(0, last) : [],
      request: (turns.contents[last] ?? { role: 'user', parts: [] }) as Content,
      config: options.config,
      ...(options.readToolName ? { readToolName: options.readToolName } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.cache ? { cache: options.cache } : {}),
      cacheLikelyCold: this.providerCacheCold(),
    });
    const turnsSent = last >= 0 ? [...masked.history, masked.request] : [];
    const saving = await this.saveDecisions(
      { before: turns.contents, after: turnsSent, result: masked.result },
      pause,
    );
    if (saving === 'conflict' && retry) return undefined;
    const { saved, unsavedDecisions } =
      saving === 'conflict' ? { saved: false, unsavedDecisions: unsavedOf(masked.result) } : saving;

    const contents = saved ? turns.ungroup(turnsSent) : applied;
    const changedIndices = await changedFrom(contents, incoming, interned, pause);
    if (options.keptAsSent) {
      for (const index of changedIndices) interned[index] = contents[index] as Content;
    }
    this.history.remember(interned, contents);
    this.wholeBodyBytes = options.retainedBytes ?? 0;
    return {
      contents,
      changedIndices,
      result: masked.result,
      cacheLikelyCold: masked.cacheLikelyCold,
      ...(await this.decisions.tally(contents, pause)),
      unsavedDecisions,
    };
  }

  /**
   * The pass's new decisions, saved before they are used. If they cannot be, the request goes
   * without them (`saved` false; `unsavedDecisions`: the masked ones left out).
   */
  private async saveDecisions(
    pass: { before: readonly Content[]; after: readonly Content[]; result: MaskingResult },
    pause: EventLoopPauser,
  ): Promise<{ saved: boolean; unsavedDecisions: number } | 'conflict'> {
    const records = await decisionsOfPass(pass, this.options.now(), pause);
    if (records.length === 0) return { saved: true, unsavedDecisions: 0 };
    const shared = this.options.store.since !== undefined;
    try {
      // A batch at a time, each written before the next: still none used unless all are saved.
      // On a shared store, the first batch goes only if nobody appended since the catch-up; the
      // others follow it (a replica that lost the race then finds them all, or a prefix of them
      // if this one died mid-way: decisions never depend on the ones after them).
      for (let at = 0; at < records.length; at += DECISIONS_PER_APPEND) {
        await this.options.store.appendDecisions(
          this.id,
          records.length <= DECISIONS_PER_APPEND
            ? records
            : records.slice(at, at + DECISIONS_PER_APPEND),
          shared ? this.known + at : undefined,
        );
      }
      for (const record of records) {
        this.rememberStored(record);
        if (pause.due()) await pause();
      }
      return { saved: true, unsavedDecisions: 0 };
    } catch (error) {
      if (error instanceof DecisionConflictError) {
        if (error.count < this.known) {
          // The store lost decisions (a Redis restarted without persistence, keys expired): go on
          // from what it holds; what this gateway knew stays applied here.
          this.options.debug(
            `[toolmask gateway] conversation ${this.id}: the store holds ${error.count} decisions, ${this.known} were known; going on from the store's`,
          );
          this.known = error.count;
        }
        return 'conflict';
      }
      // Never use a decision that a restart would not find again: send without it.
      this.options.debug(
        `[toolmask gateway] could not save ${records.length} decision(s) of conversation ${this.id}; the request goes without them: ${describeError(error)}`,
      );
      const unsaved = records.filter((record) => record.kind === 'masked').length;
      return { saved: false, unsavedDecisions: unsaved };
    }
  }

  private load(): Promise<void> {
    this.loaded ??= (async () => {
      const stored = await this.options.store.load(this.id);
      for (const record of stored.decisions) this.rememberStored(record);
      if (stored.meta) this.adoptMeta(stored.meta);
      this.isLoaded = true;
    })().catch((error: unknown) => {
      // Not loaded: the next request tries again (a store that is back resumes masking).
      this.loaded = undefined;
      throw error;
    });
    return this.loaded;
  }

  /** A decision as the store holds it, in the store's order. */
  private rememberStored(record: DecisionRecord): void {
    this.decisions.remember(record);
    this.known++;
  }

  /** The state after the last answer, as the store has it. */
  private adoptMeta(meta: ConversationMeta): void {
    this.meta = meta;
    if (meta.lastEndedAt !== undefined) this.middleware.requestEnded(meta.lastEndedAt);
  }

  /**
   * A shared store: what other gateways did since this one last looked. New decisions make the
   * history kept between requests stale: it is let go (decisions and outputs kept whole stay
   * known). The last answer's state is taken when it is newer than this gateway's own.
   */
  private async catchUp(lookAhead?: StoreLookAhead): Promise<void> {
    if (!this.options.store.since) return;
    // A read started before this turn's decoding, when it asked for what is still unknown.
    const update =
      lookAhead && lookAhead.known === this.known
        ? await lookAhead.update
        : await this.options.store.since(this.id, this.known);
    if (update.decisions.length > 0) {
      for (const record of update.decisions) this.rememberStored(record);
      this.history.clear();
      this.service.forgetHistory();
    }
    const ours = this.meta?.lastEndedAt ?? -Infinity;
    if (update.meta && (update.meta.lastEndedAt ?? -Infinity) >= ours) this.adoptMeta(update.meta);
  }

  /** The provider reported that none of a large last prompt was cached. */
  private providerCacheCold(): boolean {
    const meta = this.meta;
    return (
      meta?.lastPromptTokens !== undefined &&
      meta.lastPromptTokens >= MIN_CACHEABLE_PROMPT_TOKENS &&
      meta.lastCachedTokens === 0
    );
  }
}

/** Masked outputs a pass decided on (those a request goes without when they cannot be saved). */
function unsavedOf(result: MaskingResult): number {
  return result.offloaded.length;
}
