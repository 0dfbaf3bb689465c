/**
 * The public surface of @toolmask/cli for other code: the replay engine, its strategies and the
 * session loaders (docs/cli.md, "Using the replay engine from code"), and the measures the bench
 * takes of a replay (bench/*.mjs). The binary is `dist/index.js`.
 *
 * Curated: a value is here because the docs promise it or the bench uses it, and a type because a
 * value's parameters or result name it. `publicApi.test.ts` pins the list; adding a name is a
 * decision.
 */

// The engine and what it reads and returns.
export { replaySessions, type ReplayOptions } from './replay/engine.js';
export type {
  RecordedUsage,
  RecordedUsageSummary,
  ReplayResult,
  ReplaySession,
  ReplayStrategy,
  ReplayTask,
  RequestRow,
  StrategyPassOutcome,
  StrategyReplay,
  StrategyRequest,
  StrategySession,
  StrategySummary,
} from './replay/types.js';
export type { ContentTokenCounter } from './replay/content-meter.js';
export {
  findRequestPoints,
  flattenSession,
  type ColdRequestRule,
  type FlatContent,
  type RequestPoint,
} from './replay/request-points.js';

// The strategies.
export { createNoneStrategy } from './replay/strategies/none.js';
export {
  createToolmaskStrategy,
  type ToolmaskStrategyOptions,
} from './replay/strategies/toolmask.js';
export {
  createGeminiCliStrategy,
  type GeminiCliMaskingConfig,
  type GeminiCliStrategyOptions,
} from './replay/strategies/gemini-cli.js';
export { withColdSignal } from './replay/strategies/cold-signal.js';
export { seedIdleGaps, type IdleGaps } from './replay/idle-gaps.js';

// Loading sessions.
export {
  loadInputs,
  type DirectoryInput,
  type LoadedInputs,
  type LoadInputsOptions,
  type RejectedInput,
  type SkippedInput,
} from './input/load-inputs.js';
export type { LoadedTask } from './input/load-task-file.js';
export { chainTasks } from './input/chain-tasks.js';

// What the bench measures of a replay: when each strategy masks, the cheapest schedule, and how
// much of what the agent later quotes stays in the context.
export {
  observeMasking,
  type MaskingMoment,
  type ObservedStrategy,
} from './replay/masking-moments.js';
export {
  optimalSchedule,
  scheduleCost,
  type ScheduleCost,
  type ScheduleModel,
} from './replay/metrics/optimal-schedule.js';
export { buildScheduleModel, type ScheduleModelInput } from './replay/metrics/schedule-model.js';
// The lines a later turn quotes: how a line is compared, what of a content or a response can be
// quoted (bench/readBacks.mjs and bench/outputKinds.mjs price and sort the read-backs by them).
export {
  SessionQuotes,
  lineKey,
  quotableText,
  responseText,
  type QuoteIndex,
} from './replay/metrics/quoted-lines.js';
export {
  NOTHING_KEPT,
  addInformationKept,
  informationKept,
  keptShare,
  keptShareOfAll,
  type InformationKept,
} from './replay/metrics/information-kept.js';
export {
  NOTHING_OUT_OF_VIEW,
  addOutOfView,
  outOfView,
  type OutOfView,
} from './replay/metrics/out-of-view.js';
export { earlyMaskingMoments } from './replay/metrics/early-masking.js';
export { reachBacks, quantile } from './replay/metrics/reach-back.js';
