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
 *
 * The steps of a pass are in maskingPass/: the planning and the state it keeps between passes
 * (passPlanning.ts), trying each output (outputAttempts.ts, maskedForm.ts, the worth rule, the
 * saved text), the history with the masked parts in place, the result and its telemetry event,
 * and the record of every response seen (responseRecords.ts); this class joins them.
 */
import type { AnyValueMap } from '@opentelemetry/api-logs';
import type {
  Content,
  MaskOptions,
  MaskingFailure,
  MaskingHost,
  MaskingResult,
} from './maskingTypes.js';
import type { MaskingPlan } from './maskingPlan.js';
import { DEFAULT_CACHE_ECONOMICS, type CacheEconomics } from './cacheEconomics.js';
import { DEFAULT_SUPERSEDED_REASONS, type SupersededReason } from './superseded/supersession.js';
import { PREVIEW_LIMITS, type PreviewLimits } from './previewLimits.js';
import type { PreviewFamily } from './previews/index.js';
import { attemptAll, type AttemptSettings } from './maskingPass/outputAttempts.js';
import { passEvent } from './maskingPass/passEvent.js';
import { PassPlanning } from './maskingPass/passPlanning.js';
import { maskedResult, sortAttempts, unchangedResult } from './maskingPass/passResult.js';
import { replaceMaskedParts } from './maskingPass/replacedHistory.js';
import { ResponseRecords } from './maskingPass/responseRecords.js';
import { MAX_KEPT_RATIO, MIN_SAVED_TOKENS } from './maskingPass/worthMasking.js';
import { createFileToolOutputStore, type ToolOutputStore } from '../storage/toolOutputStore.js';
import { sessionDirectory } from '../storage/outputLayout.js';
import { describeError, errorCode, safeSink } from '../utils/safeCall.js';
import { eventLoopPauser } from '../utils/eventLoop.js';
import { estimateFunctionResponseTokens } from '../utils/tokenCalculation.js';
import type { ToolOutputMaskingEvent } from '../telemetry/toolOutputMaskingEvent.js';
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
  /**
   * The search over saved outputs as the model sees it, named in every snippet beside the
   * read-back tool, for a host that offers it (`MaskOptions.searchToolName` per call).
   * @default none: snippets name the read-back tool alone.
   */
  searchToolName?: string;
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

export class ToolOutputMaskingService {
  private readonly clock: () => number;
  private readonly telemetry: (event: ToolOutputMaskingEvent) => void;
  private readonly debug: (message: string) => void;
  private readonly readToolName: string | undefined;
  private readonly searchToolName: string | undefined;
  private readonly cacheEconomics: Readonly<CacheEconomics>;
  /** Per response object: its estimate and whether it is a toolmask snippet. */
  private readonly responses: ResponseRecords;
  /** The store, the knobs and the records each output's attempt uses. */
  private readonly attempts: AttemptSettings;
  /** The ledger and the tracker of superseded outputs, kept between passes. */
  private readonly planning: PassPlanning;

  constructor(deps: ToolOutputMaskingServiceDeps = {}) {
    this.clock = deps._internal?.clock ?? (() => performance.timeOrigin + performance.now());
    const commonAttributes = deps.commonAttributes ?? (() => ({}));
    this.telemetry = deps.telemetry ?? ((event) => logToolOutputMasking(event, commonAttributes()));
    // A failing debug sink must not fail the pass (it is called from the last line of defence).
    this.debug = safeSink(deps.debug);
    this.readToolName = deps.readToolName;
    this.searchToolName = deps.searchToolName;
    const tuning = deps._internal?.tuning;
    const estimateResponseTokens = tuning?.estimateResponseTokens ?? estimateFunctionResponseTokens;
    this.responses = new ResponseRecords(estimateResponseTokens);
    this.attempts = {
      store: deps.store ?? createFileToolOutputStore(),
      responses: this.responses,
      estimateResponseTokens,
      previewLimits: { ...PREVIEW_LIMITS, ...tuning?.previewLimits },
      previewFamily: tuning?.previewFamily ?? 'by-kind',
      minSavedTokens: tuning?.minSavedTokens ?? MIN_SAVED_TOKENS,
      maxKeptRatio: tuning?.maxKeptRatio ?? MAX_KEPT_RATIO,
      writeConcurrency: Math.max(1, deps.writeConcurrency ?? 4),
    };
    this.cacheEconomics = tuning?.cacheEconomics ?? DEFAULT_CACHE_ECONOMICS;
    const reasons = tuning?.supersededReasons ?? DEFAULT_SUPERSEDED_REASONS;
    this.planning = new PassPlanning(this.responses, reasons, this.debug);
  }

  /**
   * Records `response` as a snippet this toolmask produced, restored from the host's own log (the
   * gateway re-applies its earlier decisions to the unmasked history a client resends). It is
   * then neither counted nor masked again, like the snippets this service made itself.
   */
  markMasked(response: object): void {
    this.responses.markMasked(response);
  }

  /**
   * Records that `response` was tried before and kept whole (a snippet would not save enough; see
   * `MaskingResult.keptWhole`), restored from the host's own log: it is not counted again.
   */
  markKeptWhole(response: object): void {
    this.responses.markKeptWhole(response);
  }

  /**
   * Lets go of the history kept between passes (its entries' summaries), for a host under memory
   * pressure: the next pass measures its history anew. Recorded snippets and outputs kept whole
   * stay known.
   */
  forgetHistory(): void {
    this.planning.forget();
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
    return unchangedResult(history, this.clock() - startedAt, tokens, prunable, failures);
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
    const request = {
      cacheLikelyCold: options.cacheLikelyCold,
      cache: options.cache ?? this.cacheEconomics,
    };
    const plan = await this.planning.plan(history, config, request, failures, pause);
    if (plan.targets.length === 0) return this.nothingToMask(history, startedAt, plan, failures);

    const directory = sessionDirectory(host.storage.getProjectTempDir(), host.getSessionId());
    const pass = {
      directory,
      readToolName: options.readToolName ?? this.readToolName,
      searchToolName: options.searchToolName ?? this.searchToolName,
      signal: options.signal,
      pause,
    };
    const attempts = sortAttempts(
      await attemptAll(history, plan.targets, pass, this.attempts),
      failures,
    );
    this.reportFailures(failures);

    const newHistory = replaceMaskedParts(history, attempts.masked);
    // Outputs kept whole stop counting, and entries the pass replaced are new objects next pass:
    // the ledger measures them again then, and lets go of the replaced outputs' text now.
    // The first changed index is the smallest (they are sorted), spread into no call: a pass may
    // change more entries than a call takes arguments.
    const firstChanged = Math.min(
      attempts.firstKeptWhole,
      newHistory.changedIndices[0] ?? Infinity,
    );
    if (firstChanged < Infinity) {
      await this.planning.afterPass(newHistory.changedIndices, firstChanged);
    }
    const result = maskedResult({
      plan,
      attempts,
      failures,
      newHistory,
      directory,
      maxOutputTokens: config.maxOutputTokens,
      durationMs: this.clock() - startedAt,
    });
    if (result.maskedCount > 0 || failures.length > 0) this.emit(result, plan.trigger ?? 'none');
    return result;
  }

  /** A pass whose plan names no output: unchanged, reported when some part could not be read. */
  private nothingToMask(
    history: readonly Content[],
    startedAt: number,
    plan: MaskingPlan,
    failures: MaskingFailure[],
  ): MaskingResult {
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

  private reportFailures(failures: readonly MaskingFailure[]): void {
    for (const failure of failures) {
      this.debug(
        `toolmask: left ${failure.toolName} ${failure.callId} unmasked: ${failure.code} ${failure.message}`,
      );
    }
  }

  private emit(result: MaskingResult, trigger: string): void {
    try {
      this.telemetry(passEvent(result, trigger, this.clock()));
    } catch (error) {
      this.debug(`toolmask: telemetry failed: ${describeError(error)}`);
    }
  }
}
