/**
 * The machine-readable result of `toolmask replay` (`--json`), also the input of the HTML report.
 * `schemaVersion` changes only when a field is removed or changes meaning; see docs/cli.md.
 */
import type { ToolOutputMaskingConfig } from '@toolmask/core';
import type { PricingName } from '../replay/pricing.js';
import type { GeminiCliMaskingConfig } from '../replay/strategies/gemini-cli.js';
import type { RecordedUsageSummary, ReplayResult, StrategyReplay } from '../replay/types.js';

export const REPLAY_REPORT_SCHEMA_VERSION = 2;

export interface ReplayReport {
  schemaVersion: typeof REPLAY_REPORT_SCHEMA_VERSION;
  generatedBy: 'toolmask replay';
  inputs: {
    /** The PATH arguments, or the built-in example's path. */
    paths: string[];
    builtinExample: boolean;
    concat: number;
    rejected: { file: string; reason: string }[];
    /** Files found in a directory PATH that are not sessions (a settings file, a log). */
    skipped: { file: string; reason: string }[];
  };
  pricing: {
    /** Whose cache rules priced the run (`--pricing`, or the inputs' provider). */
    provider?: PricingName;
    cacheDiscount: number;
    /** Price of a token not read from the cache (written to it): 1.25 under Anthropic's rules. */
    cacheWritePrice?: number;
    warmTaskStarts: boolean;
    tokenEstimator: string;
    /** Usage the transcripts recorded; requests with cached tokens are priced from it. */
    recorded?: RecordedUsageSummary;
  };
  settings: {
    toolmask?: ToolOutputMaskingConfig;
    geminiCli?: GeminiCliMaskingConfig;
  };
  sessions: {
    id: string;
    label: string;
    /** The chained tasks' labels, in order. */
    taskLabels: string[];
    contentCount: number;
    requestCount: number;
  }[];
  strategies: StrategyReplay[];
}

export interface ReplayReportContext {
  paths: string[];
  builtinExample: boolean;
  concat: number;
  rejected: { file: string; reason: string }[];
  skipped: { file: string; reason: string }[];
  taskLabels: Map<string, string[]>;
  settings: ReplayReport['settings'];
  /** Whose cache rules priced the run. */
  provider?: PricingName;
}

export function buildReplayReport(
  result: ReplayResult,
  context: ReplayReportContext,
): ReplayReport {
  return {
    schemaVersion: REPLAY_REPORT_SCHEMA_VERSION,
    generatedBy: 'toolmask replay',
    inputs: {
      paths: context.paths,
      builtinExample: context.builtinExample,
      concat: context.concat,
      rejected: context.rejected,
      skipped: context.skipped,
    },
    pricing: {
      ...(context.provider ? { provider: context.provider } : {}),
      cacheDiscount: result.cacheDiscount,
      cacheWritePrice: result.cacheWritePrice,
      warmTaskStarts: result.warmTaskStarts,
      tokenEstimator: 'estimateTokenCountSync (@toolmask/core), the same for every strategy',
      ...(result.recordedUsage ? { recorded: result.recordedUsage } : {}),
    },
    settings: context.settings,
    sessions: result.sessions.map((session) => ({
      id: session.id,
      label: session.label,
      taskLabels: context.taskLabels.get(session.id) ?? [],
      contentCount: session.contentCount,
      requestCount: session.requestCount,
    })),
    strategies: result.strategies,
  };
}
