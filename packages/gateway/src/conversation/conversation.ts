/**
 * One conversation as the gateway sees it: the client resends its whole unmasked history with
 * every request, and the gateway must send the same masked bytes for every output it masked
 * before, so the provider's prefix cache keeps hitting.
 *
 * Per request (`prepare`, one at a time per conversation):
 * 1. Entries equal to the previous request's (a deep compare, much cheaper than estimating) are
 *    replaced by what was sent for them last time: the same objects, so core's ledger and
 *    estimate caches hit and the pass costs what is new.
 * 2. New entries get the conversation's recorded decisions: an output masked before is replaced
 *    by its recorded snippet, byte for byte; one kept whole before stays whole and uncounted.
 * 3. The masking middleware runs (the same as in every host): the content being sent is the last
 *    entry; the cold signal is the idle gap since the last answer, or the provider's own report
 *    that nothing of the last prompt was cached.
 * 4. New decisions are appended to the store before the request is forwarded. If that fails, the
 *    request goes out without them (the next one tries again): a decision is never used unsaved.
 *
 * After a restart, the recorded decisions and the last answer's time and usage are loaded again,
 * so the requests that follow carry exactly the bytes they would have carried.
 */
import { describeError } from '@toolmask/core/errors';
import {
  ToolOutputMaskingService,
  createMaskingMiddleware,
  type Content,
  type MaskingHost,
  type MaskingMiddleware,
  type MaskingResult,
  type Part,
  type ToolOutputMaskingConfig,
  type ToolOutputMaskingEvent,
} from '@toolmask/core';
import type { ToolOutputStore } from '@toolmask/core/storage';
import type { ConversationMeta, ConversationStore, DecisionRecord } from '../state/stores.js';
import type { ArrayCodec } from '../fronts/front.js';
import { IncrementalBody } from './incremental-body.js';
import { outputKey } from './output-key.js';
import { sameJson } from './same-json.js';
import { groupToolRuns, type ToolRunCache } from './tool-runs.js';

/** A prompt this large that the provider cached none of: it is not caching this conversation. */
export const MIN_CACHEABLE_PROMPT_TOKENS = 4_096;

export interface ConversationOptions {
  id: string;
  /** Settings, session id (the conversation id) and output folder of the pass. */
  host: MaskingHost;
  store: ConversationStore;
  outputs: ToolOutputStore;
  /** The read-back tool as the client's model sees it, unless a request declares it (see prepare). */
  readToolName: string;
  idleGapMs?: number;
  now: () => number;
  /** Telemetry sink of the pass (the gateway adds its attributes). */
  telemetry: (event: ToolOutputMaskingEvent) => void;
  debug: (message: string) => void;
}

export interface PrepareOptions {
  signal?: AbortSignal;
  /** Bytes of the request, for the memory bound. */
  retainedBytes?: number;
  /** The read-back tool as this request declares it (named in new snippets). */
  readToolName?: string;
  /**
   * `incoming` comes from an incremental reader, which keeps what is sent for an entry in place
   * of the client's version (incremental-body.ts): the conversation does the same, so a masked
   * output's whole text is let go as soon as the request is written.
   */
  keptAsSent?: boolean;
  /**
   * The masking settings as the handler read them for this request (read once a request: the
   * pass uses these instead of reading the settings file's state again).
   */
  config?: ToolOutputMaskingConfig;
}

export interface PreparedRequest {
  /** The contents to send. */
  contents: Content[];
  /**
   * Entries of `contents` that differ from `incoming` (an entry that came as what was sent for it
   * last time is not among them: incremental-body.ts writes it from what it wrote).
   */
  changedIndices: number[];
  result: MaskingResult;
  cacheLikelyCold: boolean;
  /** Masked outputs in the request as sent, and the tokens they keep out (estimates). */
  maskedOutputs: number;
  tokensKeptOut: number;
  /** Decisions made by this request's pass that could not be saved (the request went without them). */
  unsavedDecisions: number;
}

interface MaskedDecision {
  record: Extract<DecisionRecord, { kind: 'masked' }>;
  /** The snippet response object, shared by every request that carries it. */
  response: { output: string };
}

export class Conversation {
  readonly id: string;
  meta?: ConversationMeta;
  /** Bytes of a request read whole (not by an incremental reader), kept until the next one. */
  private wholeBodyBytes = 0;
  private readonly service: ToolOutputMaskingService;
  private readonly middleware: MaskingMiddleware;
  private readonly masked = new Map<string, MaskedDecision>();
  /** Snippet response object → its decision (to count what a request carries). */
  private readonly bySnippet = new WeakMap<object, MaskedDecision>();
  private readonly kept = new Set<string>();
  private lastIncoming: Content[] = [];
  private lastSent: Content[] = [];
  private loaded?: Promise<void>;
  /** The read-back tool's name in the request being prepared, if it declares one. */
  private declaredReadTool?: string;
  private queue: Promise<unknown> = Promise.resolve();
  /** A task of `exclusive` under way (one at a time), and a release asked for meanwhile. */
  private taskRunning = false;
  private releaseWhenIdle = false;
  private readonly bodies = new Map<ArrayCodec, IncrementalBody>();
  /** Parallel tool results grouped as one turn for the pass (tool-runs.ts). */
  private readonly toolRuns: ToolRunCache = new WeakMap();
  /** The masking settings of the request being prepared (PrepareOptions.config). */
  private requestConfig?: ToolOutputMaskingConfig;
  /** Requests of this conversation in flight (the registry never forgets a busy conversation). */
  private inFlight = 0;

  constructor(private readonly options: ConversationOptions) {
    this.id = options.id;
    this.service = new ToolOutputMaskingService({
      store: options.outputs,
      telemetry: options.telemetry,
      debug: options.debug,
      readToolName: () => this.declaredReadTool ?? options.readToolName,
    });
    this.middleware = createMaskingMiddleware(this.service, {
      host: {
        ...options.host,
        // The settings the request being prepared was read with, when its handler read them.
        getToolOutputMaskingConfig: async () =>
          this.requestConfig ?? (await options.host.getToolOutputMaskingConfig()),
      },
      ...(options.idleGapMs !== undefined ? { idleGapMs: options.idleGapMs } : {}),
      debug: options.debug,
      _internal: { now: options.now },
    });
  }

  /** Approximate bytes of the history this conversation keeps between requests. */
  get retainedBytes(): number {
    let bodies = 0;
    for (const body of this.bodies.values()) bodies += body.retainedBytes;
    return Math.max(this.wholeBodyBytes, bodies);
  }

  /** A request of this conversation is in flight until `release` (the registry keeps it). */
  hold(): this {
    this.inFlight++;
    return this;
  }

  release(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
  }

  /** A request of this conversation is in flight. */
  get busy(): boolean {
    return this.inFlight > 0;
  }

  /** Runs `task` after every earlier task of this conversation has finished (one request at a time). */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      this.taskRunning = true;
      try {
        return await task();
      } finally {
        this.taskRunning = false;
        if (this.releaseWhenIdle) this.releaseHistoryNow();
      }
    });
    // The queue keeps neither the task's error nor its result (a request's whole history).
    this.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Masks one request's conversation (in turn with the conversation's other requests). */
  prepare(incoming: Content[], options: PrepareOptions = {}): Promise<PreparedRequest> {
    return this.exclusive(() => this.prepareNow(incoming, options));
  }

  /** Whether an output of this conversation was masked before (its decisions loaded). */
  async hasMaskedOutputs(): Promise<boolean> {
    await this.load();
    return this.masked.size > 0;
  }

  /** The incremental reader and writer of this conversation's bodies in one front's shape. */
  body(codec: ArrayCodec): IncrementalBody {
    let body = this.bodies.get(codec);
    if (!body) {
      body = new IncrementalBody(codec);
      this.bodies.set(codec, body);
    }
    return body;
  }

  /**
   * The contents with what is already decided applied, without a pass and without changing any
   * state: what `countTokens` should count.
   */
  async preview(incoming: Content[]): Promise<{ contents: Content[]; changedIndices: number[] }> {
    await this.load();
    const { applied, interned } = this.withKnownDecisions(incoming);
    return { contents: applied, changedIndices: changedFrom(applied, incoming, interned) };
  }

  /**
   * `incoming` with what is known applied: entries equal to the previous request's are what was
   * sent for them then; new ones get the recorded decisions. An entry may come as the very
   * Content sent for it last time (the incremental reader keeps an element it wrote as what it
   * wrote: incremental-body.ts); that too is an entry unchanged. `interned`: `incoming` with the
   * previous request's objects for its unchanged entries.
   */
  private withKnownDecisions(incoming: Content[]): { applied: Content[]; interned: Content[] } {
    const limit = Math.min(this.lastIncoming.length, incoming.length);
    let common = 0;
    while (
      common < limit &&
      (incoming[common] === this.lastSent[common] ||
        sameJson(this.lastIncoming[common], incoming[common]))
    ) {
      common++;
    }
    const applied = this.lastSent.slice(0, common);
    const interned: Content[] = [];
    for (let index = 0; index < incoming.length; index++) {
      const content = incoming[index] as Content;
      if (index >= common) {
        applied.push(this.applyDecisions(content));
        interned.push(content);
      } else {
        // What was sent, when that is what came: the client's version is not kept.
        interned.push(content === applied[index] ? content : (this.lastIncoming[index] as Content));
      }
    }
    return { applied, interned };
  }

  /** The answer to a request ended: the idle gap counts from now; the usage is remembered. */
  async finish(usage: { promptTokens?: number; cachedTokens?: number }, meta: ConversationMeta) {
    const endedAt = this.options.now();
    this.middleware.requestEnded(endedAt);
    this.meta = { ...meta, lastEndedAt: endedAt };
    if (usage.promptTokens !== undefined) this.meta.lastPromptTokens = usage.promptTokens;
    if (usage.cachedTokens !== undefined) this.meta.lastCachedTokens = usage.cachedTokens;
    await this.options.store.saveMeta(this.id, this.meta);
  }

  /**
   * Forgets the history kept between requests (memory pressure); decisions stay. A task of this
   * conversation under way (a pass between reading its body and writing it) keeps the history it
   * works on: it is forgotten when the task ends.
   */
  releaseHistory(): void {
    if (this.taskRunning) this.releaseWhenIdle = true;
    else this.releaseHistoryNow();
  }

  private releaseHistoryNow(): void {
    this.releaseWhenIdle = false;
    this.lastIncoming = [];
    this.lastSent = [];
    this.wholeBodyBytes = 0;
    for (const body of this.bodies.values()) body.reset();
    this.service.forgetHistory();
  }

  private load(): Promise<void> {
    this.loaded ??= (async () => {
      const stored = await this.options.store.load(this.id);
      for (const record of stored.decisions) this.remember(record);
      if (stored.meta) {
        this.meta = stored.meta;
        if (stored.meta.lastEndedAt !== undefined) {
          this.middleware.requestEnded(stored.meta.lastEndedAt);
        }
      }
    })();
    return this.loaded;
  }

  private remember(record: DecisionRecord): void {
    if (record.kind === 'kept') {
      this.kept.add(record.key);
      return;
    }
    const decision: MaskedDecision = { record, response: record.response };
    this.masked.set(record.key, decision);
    this.bySnippet.set(record.response, decision);
    this.service.markMasked(record.response);
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

  /** An entry with the recorded decisions applied: the same object when none applies. */
  private applyDecisions(content: Content): Content {
    const parts = content?.parts;
    if (!Array.isArray(parts)) return content;
    let replaced: Part[] | undefined;
    parts.forEach((part, index) => {
      const functionResponse = part?.functionResponse;
      if (!functionResponse) return;
      const key = outputKey(functionResponse);
      const decision = this.masked.get(key);
      if (decision) {
        replaced ??= parts.slice();
        replaced[index] = {
          ...part,
          functionResponse: { ...functionResponse, response: decision.response },
        };
      } else if (this.kept.has(key) && functionResponse.response) {
        this.service.markKeptWhole(functionResponse.response);
      }
    });
    return replaced ? { ...content, parts: replaced } : content;
  }

  /** `prepare` without waiting its turn: only from inside `exclusive`. */
  async prepareNow(incoming: Content[], options: PrepareOptions = {}): Promise<PreparedRequest> {
    await this.load();
    // Snippets name the read-back tool as this request declares it to the model.
    if (options.readToolName) this.declaredReadTool = options.readToolName;
    const { applied, interned } = this.withKnownDecisions(incoming);

    const turns = groupToolRuns(applied, this.toolRuns);
    const last = turns.contents.length - 1;
    this.requestConfig = options.config;
    let masked: Awaited<ReturnType<MaskingMiddleware['transformRequest']>>;
    try {
      masked = await this.middleware.transformRequest({
        history: last > 0 ? turns.contents.slice(0, last) : [],
        request: (turns.contents[last] ?? { role: 'user', parts: [] }) as Content,
        ...(options.signal ? { signal: options.signal } : {}),
        cacheLikelyCold: this.providerCacheCold(),
      });
    } finally {
      this.requestConfig = undefined;
    }
    const turnsSent = last >= 0 ? [...masked.history, masked.request] : [];
    const records = this.newDecisions(turns.contents, turnsSent, masked.result);
    let sent = turns.ungroup(turnsSent);
    let unsavedDecisions = 0;
    if (records.length > 0) {
      try {
        await this.options.store.appendDecisions(this.id, records);
        for (const record of records) this.remember(record);
      } catch (error) {
        // Never use a decision that a restart would not find again: send without it.
        unsavedDecisions = records.filter((record) => record.kind === 'masked').length;
        this.options.debug(
          `[toolmask gateway] could not save ${records.length} decision(s) of conversation ${this.id}; the request goes without them: ${describeError(error)}`,
        );
        sent = applied;
      }
    }

    const changedIndices = changedFrom(sent, incoming, interned);
    if (options.keptAsSent) {
      for (const index of changedIndices) interned[index] = sent[index] as Content;
    }
    this.lastIncoming = interned;
    this.lastSent = sent;
    this.wholeBodyBytes = options.retainedBytes ?? 0;
    let maskedOutputs = 0;
    let tokensKeptOut = 0;
    for (const content of sent) {
      for (const part of content?.parts ?? []) {
        const response = part?.functionResponse?.response;
        const decision = response ? this.bySnippet.get(response) : undefined;
        if (!decision) continue;
        maskedOutputs++;
        tokensKeptOut += Math.max(0, decision.record.tokensBefore - decision.record.tokensAfter);
      }
    }
    return {
      contents: sent,
      changedIndices,
      result: masked.result,
      cacheLikelyCold: masked.cacheLikelyCold,
      maskedOutputs,
      tokensKeptOut,
      unsavedDecisions,
    };
  }

  /** The decisions the pass made on `before` (masked parts in `after`, outputs kept whole). */
  private newDecisions(
    before: readonly Content[],
    after: readonly Content[],
    result: MaskingResult,
  ): DecisionRecord[] {
    const at = this.options.now();
    const records: DecisionRecord[] = [];
    // The service lists offloaded outputs in history order, as the changed parts are found here.
    let offloadedIndex = 0;
    for (const contentIndex of result.changedIndices) {
      const oldParts = before[contentIndex]?.parts ?? [];
      const newParts = after[contentIndex]?.parts ?? [];
      oldParts.forEach((oldPart, partIndex) => {
        const newPart = newParts[partIndex];
        const original = oldPart?.functionResponse;
        const replacement = newPart?.functionResponse?.response as { output?: unknown } | undefined;
        if (!original || newPart === oldPart || typeof replacement?.output !== 'string') return;
        const offloaded = result.offloaded[offloadedIndex++];
        if (!offloaded) return;
        records.push({
          kind: 'masked',
          key: outputKey(original),
          toolName: offloaded.toolName,
          callId: offloaded.callId,
          response: replacement as { output: string },
          filePath: offloaded.filePath,
          bytes: offloaded.bytes,
          tokensBefore: offloaded.tokensBefore,
          tokensAfter: offloaded.tokensAfter,
          at,
        });
      });
    }
    for (const location of result.keptWhole) {
      const functionResponse =
        before[location.contentIndex]?.parts?.[location.partIndex]?.functionResponse;
      if (!functionResponse) continue;
      records.push({
        kind: 'kept',
        key: outputKey(functionResponse),
        toolName: typeof functionResponse.name === 'string' ? functionResponse.name : '',
        callId: typeof functionResponse.id === 'string' ? functionResponse.id : '',
        at,
      });
    }
    return records;
  }
}

/** Entries of `sent` that differ from what the client sent (`incoming`, or its interned objects). */
function changedFrom(
  sent: readonly Content[],
  incoming: readonly Content[],
  interned: readonly Content[],
): number[] {
  return sent.flatMap((content, index) =>
    content !== incoming[index] && content !== interned[index] ? [index] : [],
  );
}
