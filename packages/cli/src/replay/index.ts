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
