/**
 * `@toolmask/core/tuning`: what the benchmarks vary and measure the pass by, never what a host
 * needs. The defaults of the design knobs a `ToolOutputMaskingService` takes under
 * `_internal.tuning` (`MaskingTuning`; bench/policyFrontier.mjs scales the preview budgets from
 * `PREVIEW_LIMITS`), and the classifier that picks each output's preview (bench/outputKinds.mjs
 * tables its figures by the kind the pass itself would see).
 */
export { PREVIEW_LIMITS, type PreviewLimits } from '../services/previewLimits.js';
export {
  OUTPUT_KINDS,
  classifyOutput,
  mainStage,
  type OutputKind,
} from '../services/previews/outputKind.js';
