/**
 * `@toolmask/core/tuning`: the defaults of the design knobs a `ToolOutputMaskingService` takes
 * under `_internal.tuning` (`MaskingTuning`), for the benchmarks that vary them around their
 * defaults (bench/policyFrontier.mjs scales the preview budgets from `PREVIEW_LIMITS`). Hosts
 * need none of it.
 */
export { PREVIEW_LIMITS, type PreviewLimits } from '../services/previewLimits.js';
