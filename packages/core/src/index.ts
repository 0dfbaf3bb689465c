/** The public surface of @toolmask/core. */
export * from './config/toolOutputMaskingSettings.js';
export * from './services/maskingTypes.js';
export { planMasking } from './services/maskingPlan.js';
export type { MaskingPlan, MaskingTrigger, OutputRef, PlanConfig } from './services/maskingPlan.js';
export { HistoryLedger, viewHistory, summarizeEntry } from './services/historyLedger.js';
export type {
  HistoryView,
  EntrySummary,
  CountedOutput,
  MeasurePart,
} from './services/historyLedger.js';
export {
  ToolOutputMaskingService,
  fullOutputText,
  type ToolOutputMaskingServiceDeps,
} from './services/toolOutputMaskingService.js';
export {
  MASKED_TAG,
  formatMaskedSnippet,
  parseMaskedSnippet,
  isMaskedResponse,
} from './services/maskedSnippet.js';
export { buildPreview, splitShellSections, PREVIEW_LIMITS } from './services/toolOutputPreview.js';
export {
  TOOL_OUTPUTS_DIR,
  createFileToolOutputStore,
  outputFileName,
  sessionDirectory,
  sanitizeNameComponent,
  type ToolOutputStore,
  type StoreFileSystem,
} from './services/toolOutputStore.js';
export {
  estimateTextTokens,
  estimateFunctionResponseTokens,
  estimateTokenCountSync,
} from './utils/tokenCalculation.js';
export {
  ToolOutputMaskingEvent,
  EVENT_TOOL_OUTPUT_MASKING,
  type ToolOutputMaskingEventFields,
} from './telemetry/toolOutputMaskingEvent.js';
export { logToolOutputMasking, TELEMETRY_SCOPE } from './telemetry/loggers.js';
