/**
 * The data the replay engine reads and writes. Plain data only, so the bench and the CLI can share
 * the engine and serialize its result as it is.
 */
import type { Content, Part } from '@google/gemini-cli-core';

export type { Content, Part };

/** Token usage a provider reported for one recorded request (OpenAI-style transcripts). */
export interface RecordedUsage {
  promptTokens: number;
  /** Prompt tokens served from the provider's cache, when it reported them. */
  cachedTokens?: number;
  /** Prompt tokens written to the provider's cache (Anthropic reports them), when reported. */
  cacheWriteTokens?: number;
}

/**
 * What the transcripts recorded, over the requests that carry usage, for the summary (computed in
 * recorded-usage.ts).
 */
export interface RecordedUsageSummary {
  /** Requests with recorded usage. */
  requests: number;
  /** Of those, requests whose provider reported cached tokens (priced from the record). */
  pricedFromRecord: number;
  promptTokens: number;
  cachedTokens: number;
  /** The estimator's count of the same requests, to compare with `promptTokens`. */
  estimatedPromptTokens: number;
}

/** One recorded task: the contents a person and the agent exchanged, in order. */
export interface ReplayTask {
  /** Where the task came from (a file name), for people. */
  label: string;
  contents: readonly Content[];
  /**
   * Usage recorded for the request that produced the model content at the same index, where the
   * transcript kept it.
   */
  recordedUsage?: readonly (RecordedUsage | undefined)[];
}

/**
 * One session as the model saw it: one task, or several tasks chained with `--concat` (a person
 * working through them one after another in the same chat).
 */
export interface ReplaySession {
  /** Short, file-name safe id; strategies use it as the session id of their output folder. */
  id: string;
  label: string;
  tasks: readonly ReplayTask[];
}

/** What the engine tells a strategy about the request it is about to send. */
export interface StrategyRequest {
  /**
   * The prompt cache is most likely cold: a new user prompt after an idle gap (the first request
   * of a chained task) or the first request of a session.
   */
  cacheLikelyCold: boolean;
}

/** One output a pass masked, as a strategy that knows it reports it (toolmask does). */
export interface MaskedOutputInfo {
  toolName: string;
  callId: string;
  tokensBefore: number;
  tokensAfter: number;
  /**
   * Set when the session had since replaced the output's content: `rerun` (the same call ran
   * again), `read-again` (the same lines were read again), `edited` (the file was written since),
   * with the later call's id when it has one.
   */
  superseded?: { reason: string; callId?: string };
}

/** What one masking pass did. */
export interface StrategyPassOutcome {
  /**
   * The request to send: the history plus the pending content, as masked. It is also the history
   * the next request builds on.
   */
  contents: readonly Content[];
  maskedCount: number;
  /** Bytes written to disk by this pass. */
  offloadedBytes: number;
  /** Outputs that should have been masked but were left whole (write failures and the like). */
  failures: number;
  /** The line a host shows the person when something was masked. */
  notice?: string;
  /** Time of the pass itself when the strategy measured it (it did extra bookkeeping). */
  passMs?: number;
  /**
   * Each output the pass masked, from a strategy that reports them (toolmask; an empty list when
   * it masked nothing). Absent: the strategy does not say which outputs it masked.
   */
  maskedOutputs?: readonly MaskedOutputInfo[];
}

/** A strategy bound to one session (its own session id and output folder). */
export interface StrategySession {
  /**
   * Runs the pass before one request. `history` is what the strategy returned last time plus the
   * contents recorded since; `pending` is the user content being sent (not in the history yet,
   * as in gemini-cli; a strategy may pass it through its pass too, as toolmask's host does).
   */
  mask(
    history: readonly Content[],
    pending: Content,
    request: StrategyRequest,
  ): Promise<StrategyPassOutcome>;
}

/** A way of handling history before each request: no masking, toolmask, gemini-cli's own pass. */
export interface ReplayStrategy {
  name: string;
  startSession(sessionId: string): StrategySession | Promise<StrategySession>;
}

/** One request as a strategy would have sent it. Token figures all come from one estimator. */
export interface RequestRow {
  /** Id of the replayed session. */
  session: string;
  /** 0-based index of the task within the session. */
  task: number;
  /** 0-based index of the request within the session. */
  request: number;
  /** Contents in the request (masked history plus the pending user content). */
  contentCount: number;
  contextTokens: number;
  /** Tokens of the longest prefix of contents unchanged since the previous request (0 when cold). */
  cachedTokens: number;
  /** `cacheWritePrice * (contextTokens - cachedTokens) + cacheDiscount * cachedTokens`. */
  billedTokens: number;
  /** Priced as cache-cold: first request of a session, or of a chained task unless warm. */
  cacheCold: boolean;
  /** A warm request whose prefix is shorter than the whole previous request: the pass edited it. */
  cacheBreak: boolean;
  maskedCount: number;
  offloadedBytes: number;
  failures: number;
  /** Wall time of the strategy's pass before this request, in milliseconds. */
  passMs: number;
  notice?: string;
  /** The outputs this request's pass masked, when the strategy reports them and masked any. */
  maskedOutputs?: MaskedOutputInfo[];
}

export interface StrategySummary {
  strategy: string;
  requestCount: number;
  peakContextTokens: number;
  totalInputTokens: number;
  cachedTokens: number;
  billedTokens: number;
  cacheBreaks: number;
  outputsMasked: number;
  /**
   * Of the outputs masked, those the session had since replaced (`maskedOutputs[].superseded`);
   * present for a strategy that reports its masked outputs.
   */
  outputsSuperseded?: number;
  bytesOffloaded: number;
  failures: number;
  passMs: number;
}

export interface StrategyReplay {
  /** The strategy's name. */
  name: string;
  summary: StrategySummary;
  /** One row per request, in order. */
  requests: RequestRow[];
}

export interface ReplayResult {
  cacheDiscount: number;
  /** Price of an uncached token (written to the cache): 1 but under Anthropic's rules. */
  cacheWritePrice: number;
  warmTaskStarts: boolean;
  /**
   * What the transcripts recorded (OpenAI-style `usage`), when any did; requests whose provider
   * reported cached tokens are priced from the record (see recorded-usage.ts).
   */
  recordedUsage?: RecordedUsageSummary;
  sessions: {
    id: string;
    label: string;
    taskCount: number;
    contentCount: number;
    requestCount: number;
  }[];
  strategies: StrategyReplay[];
}
