/** The replay engine and its strategies: what `toolmask replay` and the bench share. */
export { replaySessions, DEFAULT_CACHE_DISCOUNT, type ReplayOptions } from './engine.js';
export { findRequestPoints, flattenSession, countRequests } from './request-points.js';
export { summarizeRequests } from './summary.js';
export {
  ContentMeter,
  defaultContentTokenCounter,
  type ContentTokenCounter,
} from './content-meter.js';
export { createNoneStrategy } from './strategies/none.js';
export { createToolmaskStrategy, type ToolmaskStrategyOptions } from './strategies/toolmask.js';
export {
  createGeminiCliStrategy,
  resolveGeminiCliMaskingConfig,
  type GeminiCliMaskingConfig,
  type GeminiCliStrategyOptions,
} from './strategies/gemini-cli.js';
export type * from './types.js';
export { isColdRequest, type ColdRequestRule, type RequestPoint } from './request-points.js';
export { seedIdleGaps, MIN_REQUESTS_FOR_GAP, type IdleGaps } from './idle-gaps.js';
export { withColdSignal } from './strategies/cold-signal.js';
export { observeMasking, type MaskingMoment, type ObservedStrategy } from './masking-moments.js';
export {
  optimalSchedule,
  scheduleCost,
  type ScheduleModel,
  type ScheduleCost,
} from './metrics/optimal-schedule.js';
export {
  buildScheduleModel,
  observedStates,
  type ScheduleModelInput,
} from './metrics/schedule-model.js';
export {
  QuoteIndex,
  SessionQuotes,
  candidateLines,
  quotableText,
  responseText,
  MIN_QUOTED_LINE_CHARS,
} from './metrics/quoted-lines.js';
export {
  informationKept,
  addInformationKept,
  keptShare,
  keptShareOfAll,
  NOTHING_KEPT,
  type InformationKept,
} from './metrics/information-kept.js';
export { earlyMaskingMoments } from './metrics/early-masking.js';
export { reachBacks, quantile } from './metrics/reach-back.js';
