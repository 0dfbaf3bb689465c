/**
 * The planning half of the service, and the state it keeps between passes: the ledger of the
 * history's outputs (historyLedger.ts), the tracker of superseded outputs (superseded/), and which
 * tools are exempt. Passes that share a service (the installation's clients) plan one at a time:
 * measuring gives the event loop turns, and the ledger and the tracker follow one history at a
 * time. What cannot be read is reported as a `MALFORMED` failure and counted as no output; a
 * tracker that fails is reset and the pass plans without superseded outputs.
 */
import type { ToolOutputMaskingConfig } from '../../config/toolOutputMaskingSettings.js';
import { describeError, isPlainObject } from '../../utils/safeCall.js';
import type { EventLoopPauser } from '../../utils/eventLoop.js';
import type { CacheEconomics } from '../cacheEconomics.js';
import { HistoryLedger } from '../historyLedger.js';
import { isOwnTool } from '../maskedSnippet.js';
import { planMasking, type MaskingPlan } from '../maskingPlan.js';
import type { Content, MaskingFailure, Part } from '../maskingTypes.js';
import { SupersededOutputs } from '../superseded/supersededOutputs.js';
import type { SupersededReason } from '../superseded/supersession.js';
import { malformed, readableHistory } from './readableHistory.js';
import type { ResponseRecords } from './responseRecords.js';

/** What a pass's plan depends on besides its history and settings. */
export interface PlanRequest {
  cacheLikelyCold: boolean | undefined;
  cache: Readonly<CacheEconomics>;
}

export class PassPlanning {
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

  constructor(
    private readonly responses: ResponseRecords,
    reasons: readonly SupersededReason[],
    private readonly debug: (message: string) => void,
  ) {
    this.superseded = reasons.length > 0 ? new SupersededOutputs({ reasons }) : undefined;
  }

  /** Lets go of the history kept between passes (`forgetHistory`). */
  forget(): void {
    this.ledger.forgetFrom(0);
    this.superseded?.reset();
  }

  /** The plan of a pass, after the planning of every earlier pass on this service. */
  plan(
    history: readonly Content[],
    config: ToolOutputMaskingConfig,
    request: PlanRequest,
    failures: MaskingFailure[],
    pause: EventLoopPauser,
  ): Promise<MaskingPlan> {
    return this.inPlanningTurn(async () => {
      const view = await this.ledgerFor(history, config, failures, pause);
      const superseded = await this.supersededFor(history, pause);
      return planMasking(view, config, {
        cacheLikelyCold: request.cacheLikelyCold,
        cache: request.cache,
        ...(superseded ? { superseded } : {}),
      });
    });
  }

  /**
   * After a pass that changed entries from `firstChanged` on: outputs kept whole stop counting,
   * and entries the pass replaced are new objects next pass, so the ledger measures them again
   * then and lets go of the replaced outputs' text now; the tracker lets go of them too.
   */
  async afterPass(changedIndices: readonly number[], firstChanged: number): Promise<void> {
    await this.inPlanningTurn(async () => {
      this.superseded?.release(changedIndices);
      this.ledger.forgetFrom(firstChanged);
    });
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
      if (this.exempt.has(name) || isOwnTool(name)) return undefined;
      const response: unknown = functionResponse.response;
      if (!isPlainObject(response)) return undefined;
      return this.responses.countableTokens(response);
    } catch (error) {
      failures.push(malformed(`unreadable tool output: ${describeError(error)}`));
      return undefined;
    }
  }
}
