/**
 * The pre-turn pass: before each model request, mask old bulky tool outputs.
 *
 * `mask(history, host)` reads the settings, asks the pure planner (maskingPlan.ts) which outputs
 * to mask, saves each one's full text through the injected store, and replaces its
 * `functionResponse.response` with `{ output: <snippet> }` (maskedSnippet.ts) carrying a preview
 * (toolOutputPreview.ts) and the absolute path of the full output. Ids, names, sibling parts and
 * nested `functionResponse.parts` are kept as they are.
 *
 * It never throws: a failed write or an output that cannot be serialized leaves that one output
 * whole and is reported in `failures`; any unexpected error returns the history untouched.
 * Token estimates are remembered per response object (a WeakMap, so nothing outlives the history
 * it describes), which makes a pass cost what is new rather than the whole history.
 *
 * Outputs the session has since replaced (superseded/: read again, edited, run again) are
 * found by a tracker kept between passes like the ledger, given to the planner, and their snippets
 * say why in one line.
 *
 * A pass never holds the event loop for long: measuring a history of many thousand new outputs,
 * and trying each output the plan names, go in stretches with a turn for the loop between (one
 * pauser per pass); a giant output's own steps (hash, size, lines, write) have theirs.
 */
import * as path from 'node:path';
import type { AnyValueMap } from '@opentelemetry/api-logs';
import type {
  Content,
  MaskOptions,
  MaskingFailure,
  MaskingHost,
  MaskingResult,
  OffloadedOutput,
  Part,
  PartLocation,
  SupersededBy,
} from './maskingTypes.js';
import type { ToolOutputMaskingConfig } from '../config/toolOutputMaskingSettings.js';
import { planMasking, type OutputRef } from './maskingPlan.js';
import { DEFAULT_CACHE_ECONOMICS, type CacheEconomics } from './cacheEconomics.js';
import { HistoryLedger } from './historyLedger.js';
import { formatMaskedSnippet, isReadBackTool } from './maskedSnippet.js';
import { SupersededOutputs } from './superseded/supersededOutputs.js';
import {
  DEFAULT_SUPERSEDED_REASONS,
  supersededNote,
  type SupersededReason,
  type Supersession,
} from './superseded/supersession.js';
import { formatMaskingNotice } from './maskingNotice.js';
import { PREVIEW_LIMITS, buildPreview, type PreviewLimits } from './toolOutputPreview.js';
import { findToolCall, type PreviewFamily } from './previews/index.js';
import { createFileToolOutputStore, type ToolOutputStore } from '../storage/toolOutputStore.js';
import {
  hashTextInChunks,
  outputFileNameOfHash,
  sessionDirectory,
} from '../storage/outputLayout.js';
import { describeError, errorCode, isPlainObject, safeSink } from '../utils/safeCall.js';
import { isWellFormed } from '../utils/codePoints.js';
import { countLinesInSlices } from '../utils/textLines.js';
import { eventLoopPauser, yieldToEventLoop, type EventLoopPauser } from '../utils/eventLoop.js';
import { UTF8_CHUNK_UNITS, utf8LengthInSlices } from '../utils/utf8Chunks.js';
import { estimateFunctionResponseTokens } from '../utils/tokenCalculation.js';
import { ToolOutputMaskingEvent } from '../telemetry/toolOutputMaskingEvent.js';
import { logToolOutputMasking } from '../telemetry/loggers.js';

export interface ToolOutputMaskingServiceDeps {
  /** Where full outputs are saved. Default: the real file system. */
  store?: ToolOutputStore;
  /** Receives one event per pass that masked something or failed to. Default: the `gemini-cli` OTel logger. */
  telemetry?: (event: ToolOutputMaskingEvent) => void;
  /** Host attributes added to every event (`session.id`, `installation.id`, `interactive`). */
  commonAttributes?: () => AnyValueMap;
  /** Debug lines (failures). Default: none. */
  debug?: (message: string) => void;
  /** Concurrent writes during one pass. @default 4 */
  writeConcurrency?: number;
  /**
   * The read-back tool's name as the model sees it, named in every snippet unless a call names
   * its own (`MaskOptions.readToolName`: a host that learns the name from each request).
   * @default 'read_tool_output' (the gateway's MCP tool reaches the model under a prefixed name).
   */
  readToolName?: string;
  /** Seams for tests and benchmarks; hosts leave them unset. */
  _internal?: {
    /** Epoch milliseconds (fractional) for `durationMs` and event timestamps. @default performance */
    clock?: () => number;
    /**
     * Knobs of the design itself, for benchmarks that measure what each one contributes
     * (bench/cachingCost.mjs) and for tests.
     */
    tuning?: MaskingTuning;
  };
}

export interface MaskingTuning {
  /** Preview sizes, over `PREVIEW_LIMITS` (the keys given replace the defaults). */
  previewLimits?: Partial<PreviewLimits>;
  /**
   * Which previews: each output's kind's (`by-kind`), or head and tail for all, as before issue 25
   * (`head-and-tail`). @default 'by-kind'
   */
  previewFamily?: PreviewFamily;
  /** Smallest saving worth a snippet. Default: `MIN_SAVED_TOKENS`. */
  minSavedTokens?: number;
  /** Largest share of an output its snippet may keep. Default: `MAX_KEPT_RATIO`. */
  maxKeptRatio?: number;
  /** Token estimate of a response. Default: `estimateFunctionResponseTokens`. */
  estimateResponseTokens?: (response: unknown) => number;
  /**
   * The provider's cache economics of a pass whose call brings none (`MaskOptions.cache`): the
   * bench replays one host under each provider's prices. Default: `DEFAULT_CACHE_ECONOMICS`.
   */
  cacheEconomics?: Readonly<CacheEconomics>;
  /**
   * Which reasons make an output superseded (superseded/); `[]` turns superseded-first
   * off. Default: `DEFAULT_SUPERSEDED_REASONS` (`rerun` and `read-again`).
   */
  supersededReasons?: readonly SupersededReason[];
}

interface ResponseInfo {
  tokens: number;
  masked: boolean;
  /**
   * Too small to be worth a snippet: kept whole for good and no longer counted, so that outputs
   * that can never be masked do not fill the prunable total (which would make every later
   * pass mask one output at a time, a cache break per request).
   */
  keptWhole?: boolean;
}

interface MaskedPart {
  ref: OutputRef;
  part: Part;
  offloaded: OffloadedOutput;
}

type AttemptResult =
  | { kind: 'masked'; value: MaskedPart }
  | { kind: 'skipped'; ref: OutputRef }
  | { kind: 'failed'; value: MaskingFailure };

/** A part or entry that could not be read (a throwing getter, a revoked proxy). */
function malformed(message: string): MaskingFailure {
  return { toolName: '', callId: '', code: 'MALFORMED', message };
}

/**
 * The history as far as it can be read: an entry whose `parts` cannot be read becomes `{}`, a
 * part that cannot be read becomes `{}` (a getter that throws, a revoked proxy). Readable entries
 * are kept as they are (same objects), so the ledger keeps recognising them.
 */
function readableHistory(history: readonly Content[]): Content[] {
  return Array.from({ length: history.length }, (_, index) => {
    try {
      const content = history[index] as Content;
      const parts: unknown = content?.parts;
      if (!Array.isArray(parts)) return content;
      let readable = true;
      const snapshot: Part[] = [];
      for (let partIndex = 0; partIndex < parts.length; partIndex++) {
        try {
          const part = parts[partIndex] as Part | null | undefined;
          snapshot.push(part?.functionResponse ? { functionResponse: part.functionResponse } : {});
        } catch {
          readable = false;
          snapshot.push({});
        }
      }
      return readable ? content : { parts: snapshot };
    } catch {
      return {};
    }
  });
}

/**
 * The text saved on disk: the `output` string itself when that is the whole response (what the
 * model read, line for line), otherwise the response as pretty JSON. Throws on cycles or BigInt.
 * An `output` with a lone surrogate has no UTF-8 form (it would be saved as U+FFFD and not
 * round-trip), so it is saved as JSON, which escapes it.
 */
export function fullOutputText(response: Record<string, unknown>): string {
  const keys = Object.keys(response);
  const output = response['output'];
  if (keys.length === 1 && keys[0] === 'output' && typeof output === 'string') {
    if (isWellFormed(output)) return output;
  }
  const text = JSON.stringify(response, null, 2);
  if (typeof text !== 'string') throw new TypeError('response does not serialize to JSON');
  return text;
}

/**
 * Masking must shrink the output clearly: at least `MIN_SAVED_TOKENS` and at least a quarter of
 * it. An output barely larger than its snippet costs a file and a preview for nothing.
 */
export const MIN_SAVED_TOKENS = 50;
export const MAX_KEPT_RATIO = 0.75;

export function isWorthMasking(
  tokensBefore: number,
  tokensAfter: number,
  minSavedTokens = MIN_SAVED_TOKENS,
  maxKeptRatio = MAX_KEPT_RATIO,
): boolean {
  return (
    tokensAfter < tokensBefore &&
    tokensBefore - tokensAfter >= minSavedTokens &&
    tokensAfter <= tokensBefore * maxKeptRatio
  );
}

/** What a result tells of a superseded output: the reason and the later call's id. */
function supersededBy(supersession: Supersession): SupersededBy {
  return {
    reason: supersession.reason,
    ...(supersession.callId !== undefined ? { callId: supersession.callId } : {}),
  };
}

/** Where one pass writes and what its snippets name: the same for every output of the pass. */
interface PassTarget {
  directory: string;
  readToolName: string | undefined;
  signal: AbortSignal | undefined;
  /** The pass's turns for the event loop. */
  pause: EventLoopPauser;
}

export class ToolOutputMaskingService {
  private readonly store: ToolOutputStore;
  private readonly clock: () => number;
  private readonly telemetry: (event: ToolOutputMaskingEvent) => void;
  private readonly debug: (message: string) => void;
  private readonly writeConcurrency: number;
  private readonly readToolName: string | undefined;
  private readonly previewLimits: PreviewLimits;
  private readonly previewFamily: PreviewFamily;
  private readonly minSavedTokens: number;
  private readonly maxKeptRatio: number;
  private readonly estimateResponseTokens: (response: unknown) => number;
  private readonly cacheEconomics: Readonly<CacheEconomics>;
  /** Per response object: its estimate and whether it is a toolmask snippet. */
  private readonly responseInfo = new WeakMap<object, ResponseInfo>();
  /** Per-entry summaries kept between passes (see historyLedger.ts). */
  private readonly ledger = new HistoryLedger();
  /** Outputs the session has since replaced, kept between passes; undefined when turned off. */
  private readonly superseded: SupersededOutputs | undefined;
  private exemptKey: string | undefined;
  private exempt: ReadonlySet<string> = new Set();
  /**
   * The planning of the passes sharing this service (the installation's clients), one at a time:
   * measuring gives the event loop turns, and the ledger holds one history at a time.
   */
  private planning: Promise<unknown> = Promise.resolve();

  constructor(deps: ToolOutputMaskingServiceDeps = {}) {
    this.store = deps.store ?? createFileToolOutputStore();
    this.clock = deps._internal?.clock ?? (() => performance.timeOrigin + performance.now());
    const commonAttributes = deps.commonAttributes ?? (() => ({}));
    this.telemetry = deps.telemetry ?? ((event) => logToolOutputMasking(event, commonAttributes()));
    // A failing debug sink must not fail the pass (it is called from the last line of defence).
    this.debug = safeSink(deps.debug);
    this.writeConcurrency = Math.max(1, deps.writeConcurrency ?? 4);
    this.readToolName = deps.readToolName;
    const tuning = deps._internal?.tuning;
    this.previewLimits = { ...PREVIEW_LIMITS, ...tuning?.previewLimits };
    this.previewFamily = tuning?.previewFamily ?? 'by-kind';
    this.minSavedTokens = tuning?.minSavedTokens ?? MIN_SAVED_TOKENS;
    this.maxKeptRatio = tuning?.maxKeptRatio ?? MAX_KEPT_RATIO;
    this.estimateResponseTokens = tuning?.estimateResponseTokens ?? estimateFunctionResponseTokens;
    this.cacheEconomics = tuning?.cacheEconomics ?? DEFAULT_CACHE_ECONOMICS;
    const reasons = tuning?.supersededReasons ?? DEFAULT_SUPERSEDED_REASONS;
    this.superseded = reasons.length > 0 ? new SupersededOutputs({ reasons }) : undefined;
  }

  /**
   * Records `response` as a snippet this toolmask produced, restored from the host's own log (the
   * gateway re-applies its earlier decisions to the unmasked history a client resends). It is
   * then neither counted nor masked again, like the snippets this service made itself.
   */
  markMasked(response: object): void {
    this.responseInfo.set(response, { tokens: 0, masked: true });
  }

  /**
   * Records that `response` was tried before and kept whole (a snippet would not save enough; see
   * `MaskingResult.keptWhole`), restored from the host's own log: it is not counted again.
   */
  markKeptWhole(response: object): void {
    this.responseInfo.set(response, { tokens: 0, masked: false, keptWhole: true });
  }

  /**
   * Lets go of the history kept between passes (its entries' summaries), for a host under memory
   * pressure: the next pass measures its history anew. Recorded snippets and outputs kept whole
   * stay known.
   */
  forgetHistory(): void {
    this.ledger.forgetFrom(0);
    this.superseded?.reset();
  }

  async mask(
    history: readonly Content[],
    host: MaskingHost,
    options: MaskOptions = {},
  ): Promise<MaskingResult> {
    const startedAt = this.clock();
    try {
      return await this.runPass(history, host, options, startedAt);
    } catch (error) {
      // Last line of defence: the turn must go on with the history as it was.
      this.debug(`toolmask: pass skipped after an unexpected error: ${describeError(error)}`);
      return this.unchanged(history, startedAt, 0, 0, [
        {
          toolName: '',
          callId: '',
          code: errorCode(error, 'INTERNAL'),
          message: describeError(error),
        },
      ]);
    }
  }

  private unchanged(
    history: readonly Content[],
    startedAt: number,
    tokens: number,
    prunable: number,
    failures: MaskingFailure[] = [],
  ): MaskingResult {
    return {
      newHistory: history,
      maskedCount: 0,
      tokensSaved: 0,
      tokensBefore: tokens,
      tokensAfter: tokens,
      totalPrunableTokens: prunable,
      supersededCount: 0,
      changedIndices: [],
      offloaded: [],
      keptWhole: [],
      failures,
      durationMs: this.clock() - startedAt,
    };
  }

  private async runPass(
    history: readonly Content[],
    host: MaskingHost,
    options: MaskOptions,
    startedAt: number,
  ): Promise<MaskingResult> {
    const config = options.config ?? (await host.getToolOutputMaskingConfig?.());
    if (!config) throw new Error('no masking settings: neither the call nor the host gave any');
    if (!config.enabled || !Array.isArray(history) || history.length === 0) {
      return this.unchanged(history, startedAt, 0, 0);
    }
    // Parts that cannot be read are left whole and reported; the rest of the pass goes on.
    const failures: MaskingFailure[] = [];
    const pause = eventLoopPauser();
    const plan = await this.inPlanningTurn(async () => {
      const view = await this.ledgerFor(history, config, failures, pause);
      const superseded = await this.supersededFor(history, pause);
      return planMasking(view, config, {
        cacheLikelyCold: options.cacheLikelyCold,
        cache: options.cache ?? this.cacheEconomics,
        ...(superseded ? { superseded } : {}),
      });
    });
    if (plan.targets.length === 0) {
      const result = this.unchanged(
        history,
        startedAt,
        plan.totalTokens,
        plan.totalPrunableTokens,
        failures,
      );
      if (failures.length > 0) {
        this.reportFailures(failures);
        this.emit(result, plan.trigger ?? 'none');
      }
      return result;
    }

    const directory = sessionDirectory(host.storage.getProjectTempDir(), host.getSessionId());
    const attempts = await this.attemptAll(history, plan.targets, {
      directory,
      readToolName: options.readToolName ?? this.readToolName,
      signal: options.signal,
      pause,
    });

    const masked: MaskedPart[] = [];
    const keptWhole: PartLocation[] = [];
    let firstKeptWhole = Infinity;
    for (const attempt of attempts) {
      if (attempt.kind === 'masked') masked.push(attempt.value);
      if (attempt.kind === 'failed') failures.push(attempt.value);
      if (attempt.kind === 'skipped') {
        keptWhole.push({
          contentIndex: attempt.ref.contentIndex,
          partIndex: attempt.ref.partIndex,
        });
        firstKeptWhole = Math.min(firstKeptWhole, attempt.ref.contentIndex);
      }
    }
    this.reportFailures(failures);

    const newHistory = this.rebuildHistory(history, masked);
    // Outputs kept whole stop counting, and entries the pass replaced are new objects next pass:
    // the ledger measures them again then, and lets go of the replaced outputs' text now.
    // The first changed index is the smallest (they are sorted), spread into no call: a pass may
    // change more entries than a call takes arguments.
    const firstChanged = Math.min(firstKeptWhole, newHistory.changedIndices[0] ?? Infinity);
    // The tracker of superseded outputs lets go of the replaced entries too.
    if (firstChanged < Infinity) {
      await this.inPlanningTurn(() => {
        this.superseded?.release(newHistory.changedIndices);
        return this.ledger.forgetFromInSlices(firstChanged, pause);
      });
    }
    const tokensSaved = masked.reduce(
      (sum, m) => sum + m.offloaded.tokensBefore - m.offloaded.tokensAfter,
      0,
    );
    const result: MaskingResult = {
      newHistory: newHistory.history,
      maskedCount: masked.length,
      tokensSaved,
      tokensBefore: plan.totalTokens,
      tokensAfter: plan.totalTokens - tokensSaved,
      totalPrunableTokens: plan.totalPrunableTokens,
      supersededCount: masked.filter((m) => m.offloaded.superseded).length,
      changedIndices: newHistory.changedIndices,
      offloaded: masked.map((m) => m.offloaded),
      keptWhole,
      failures,
      durationMs: this.clock() - startedAt,
    };
    if (masked.length > 0 && plan.trigger) result.trigger = plan.trigger;
    if (masked.length > 0) {
      result.notice = formatMaskingNotice({
        masked: masked.length,
        oversized: masked.filter(
          (m) => config.maxOutputTokens > 0 && m.offloaded.tokensBefore > config.maxOutputTokens,
        ).length,
        maxOutputTokens: config.maxOutputTokens,
        tokensSaved,
        directory,
      });
    }
    if (masked.length > 0 || failures.length > 0) this.emit(result, plan.trigger ?? 'none');
    return result;
  }

  private reportFailures(failures: readonly MaskingFailure[]): void {
    for (const failure of failures) {
      this.debug(
        `toolmask: left ${failure.toolName} ${failure.callId} unmasked: ${failure.code} ${failure.message}`,
      );
    }
  }

  /** Runs `plan` after the planning of every earlier pass on this service. */
  private inPlanningTurn<T>(plan: () => Promise<T>): Promise<T> {
    const turn = this.planning.then(plan);
    this.planning = turn.catch(() => undefined);
    return turn;
  }

  /** The ledger brought up to date with `history` (cheap when only new entries were added). */
  private async ledgerFor(
    history: readonly Content[],
    config: ToolOutputMaskingConfig,
    failures: MaskingFailure[],
    pause: EventLoopPauser,
  ): Promise<HistoryLedger> {
    const exemptKey = config.exemptTools.join('\u0001');
    if (exemptKey !== this.exemptKey) {
      this.exemptKey = exemptKey;
      this.exempt = new Set(config.exemptTools);
    }
    const maxOutputTokens = config.maxOutputTokens > 0 ? config.maxOutputTokens : Infinity;
    const measure = (part: Part) => this.measure(part, failures);
    try {
      await this.ledger.updateInSlices(history, measure, maxOutputTokens, exemptKey, pause);
    } catch (error) {
      // An entry or part that throws when read: count it as no output and go on.
      failures.push(malformed(`unreadable history entry: ${describeError(error)}`));
      const readable = readableHistory(history);
      await this.ledger.updateInSlices(readable, measure, maxOutputTokens, exemptKey, pause);
    }
    return this.ledger;
  }

  /**
   * The superseded outputs of `history` (the tracker brought up to date), or undefined when turned
   * off or when the history could not be read: the pass then plans without them.
   */
  private async supersededFor(
    history: readonly Content[],
    pause: EventLoopPauser,
  ): Promise<SupersededOutputs | undefined> {
    const tracker = this.superseded;
    if (!tracker) return undefined;
    try {
      await tracker.updateInSlices(history, pause);
      return tracker;
    } catch (error) {
      tracker.reset();
      this.debug(`toolmask: superseded outputs not found: ${describeError(error)}`);
      return undefined;
    }
  }

  /**
   * Countable tool output? Exempt tools, this service's snippets and malformed responses are not, nor
   * is a part that throws when read (a getter, a proxy): it is reported and left whole.
   */
  private measure(part: Part, failures: MaskingFailure[]): number | undefined {
    try {
      const functionResponse = part.functionResponse;
      if (!functionResponse) return undefined;
      const name = typeof functionResponse.name === 'string' ? functionResponse.name : '';
      if (this.exempt.has(name) || isReadBackTool(name)) return undefined;
      const response: unknown = functionResponse.response;
      if (!isPlainObject(response)) return undefined;
      let info = this.responseInfo.get(response);
      if (!info) {
        // Masked is what this service produced or was told of (`markMasked`), never what a
        // text looks like: a tool can print a snippet's shape around megabytes.
        info = { tokens: this.estimateResponseTokens(response), masked: false };
        this.responseInfo.set(response, info);
      }
      return info.masked || info.keptWhole ? undefined : info.tokens;
    } catch (error) {
      failures.push(malformed(`unreadable tool output: ${describeError(error)}`));
      return undefined;
    }
  }

  private async attemptAll(
    history: readonly Content[],
    targets: readonly OutputRef[],
    pass: PassTarget,
  ): Promise<AttemptResult[]> {
    const { signal, pause } = pass;
    const results: AttemptResult[] = new Array(targets.length);
    let next = 0;
    const worker = async () => {
      while (next < targets.length && !signal?.aborted) {
        // Thousands of small outputs take no I/O turn of their own (each is too small to write):
        // the loop gets one between them when the stretch has run its time.
        if (pause.due()) await pause();
        if (next >= targets.length || signal?.aborted) break;
        const index = next++;
        const ref = targets[index] as OutputRef;
        try {
          results[index] = await this.attempt(history, ref, pass);
        } catch (error) {
          // Whatever one output throws (a getter read twice, a proxy), the others go on.
          results[index] = {
            kind: 'failed',
            value: {
              toolName: '',
              callId: '',
              code: errorCode(error, 'INTERNAL'),
              message: `entry ${ref.contentIndex} part ${ref.partIndex}: ${describeError(error)}`,
            },
          };
        }
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(this.writeConcurrency, targets.length) }, worker),
    );
    return results.filter((result) => result !== undefined);
  }

  private async attempt(
    history: readonly Content[],
    ref: OutputRef,
    { directory, readToolName }: PassTarget,
  ): Promise<AttemptResult> {
    const part = history[ref.contentIndex]?.parts?.[ref.partIndex];
    const functionResponse = part?.functionResponse;
    const toolName = typeof functionResponse?.name === 'string' ? functionResponse.name : 'unknown';
    const callId = typeof functionResponse?.id === 'string' ? functionResponse.id : '';
    const fail = (code: string, message: string): AttemptResult => ({
      kind: 'failed',
      value: { toolName, callId, code, message },
    });
    const response: unknown = functionResponse?.response;
    if (!part || !functionResponse || !isPlainObject(response))
      return fail('MALFORMED', 'not a function response');

    let text: string;
    try {
      text = fullOutputText(response);
    } catch (error) {
      return fail('SERIALIZE', describeError(error));
    }
    // Each step over a giant text (hash, size, line count, preview) takes tens of ms: the event
    // loop gets a turn between them, and one first (the planning just ran).
    if (text.length > UTF8_CHUNK_UNITS) await yieldToEventLoop();
    const pause = eventLoopPauser();
    const fileName = outputFileNameOfHash(toolName, callId, await hashTextInChunks(text));
    const filePath = path.resolve(directory, fileName);
    const bytes = await utf8LengthInSlices(text, pause);
    const lines = await countLinesInSlices(text, pause);
    // The call that produced the output tells a preview what kind it is and what was asked for.
    const call =
      this.previewFamily === 'by-kind'
        ? findToolCall(history, ref.contentIndex, functionResponse)
        : undefined;
    const preview = buildPreview(toolName, response, text, this.previewLimits, {
      ...(call ? { call } : {}),
      family: this.previewFamily,
    });
    await pause();
    const note = ref.superseded ? supersededNote(ref.superseded) : undefined;
    const snippet = formatMaskedSnippet(
      { lines, bytes, filePath, preview, ...(note ? { note } : {}) },
      readToolName,
    );
    const maskedResponse = { output: snippet };
    const tokensAfter = this.estimateResponseTokens(maskedResponse);
    // Not worth it (not smaller, or too little saved for what the model loses): leave it whole
    // and write nothing.
    if (!isWorthMasking(ref.tokens, tokensAfter, this.minSavedTokens, this.maxKeptRatio)) {
      const info = this.responseInfo.get(response);
      if (info) info.keptWhole = true;
      return { kind: 'skipped', ref };
    }

    try {
      const savedPath = await this.store.save(directory, fileName, text, bytes);
      if (savedPath !== filePath)
        return fail('EPATH', `store saved to ${savedPath}, expected ${filePath}`);
    } catch (error) {
      return fail(errorCode(error, 'EWRITE'), describeError(error));
    }
    this.responseInfo.set(maskedResponse, { tokens: 0, masked: true });
    const maskedPart: Part = {
      ...part,
      functionResponse: { ...functionResponse, response: maskedResponse },
    };
    return {
      kind: 'masked',
      value: {
        ref,
        part: maskedPart,
        offloaded: {
          toolName,
          callId,
          filePath,
          bytes,
          tokensBefore: ref.tokens,
          tokensAfter,
          ...(ref.superseded ? { superseded: supersededBy(ref.superseded) } : {}),
        },
      },
    };
  }

  /** New `Content` objects only for the entries that changed; the rest are shared. */
  private rebuildHistory(
    history: readonly Content[],
    masked: readonly MaskedPart[],
  ): { history: readonly Content[]; changedIndices: number[] } {
    if (masked.length === 0) return { history, changedIndices: [] };
    const byContent = new Map<number, MaskedPart[]>();
    for (const item of masked) {
      const list = byContent.get(item.ref.contentIndex) ?? [];
      list.push(item);
      byContent.set(item.ref.contentIndex, list);
    }
    const next = history.slice();
    for (const [contentIndex, items] of byContent) {
      const content = history[contentIndex] as Content;
      const parts = (content.parts ?? []).slice();
      for (const item of items) parts[item.ref.partIndex] = item.part;
      next[contentIndex] = { ...content, parts };
    }
    return { history: next, changedIndices: [...byContent.keys()].sort((a, b) => a - b) };
  }

  private emit(result: MaskingResult, trigger: string): void {
    try {
      const event = new ToolOutputMaskingEvent(
        {
          tokens_before: result.tokensBefore,
          tokens_after: result.tokensAfter,
          masked_count: result.maskedCount,
          total_prunable_tokens: result.totalPrunableTokens,
          failed_count: result.failures.length,
          bytes_offloaded: result.offloaded.reduce((sum, item) => sum + item.bytes, 0),
          duration_ms: Math.round(result.durationMs * 1000) / 1000,
          trigger,
          failure_codes: [...new Set(result.failures.map((failure) => failure.code))].join(','),
          superseded_count: result.supersededCount,
        },
        this.clock(),
      );
      this.telemetry(event);
    } catch (error) {
      this.debug(`toolmask: telemetry failed: ${describeError(error)}`);
    }
  }
}
