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
  type MaskingTuning,
  isWorthMasking,
  MIN_SAVED_TOKENS,
  MAX_KEPT_RATIO,
} from './services/toolOutputMaskingService.js';
export {
  MASKED_TAG,
  formatMaskedSnippet,
  parseMaskedSnippet,
  isMaskedResponse,
} from './services/maskedSnippet.js';
export {
  buildPreview,
  splitShellSections,
  PREVIEW_LIMITS,
  type PreviewLimits,
} from './services/toolOutputPreview.js';
export {
  TOOL_OUTPUTS_DIR,
  createFileToolOutputStore,
  outputFileName,
  sessionDirectory,
  sessionFolderName,
  SESSION_FOLDER_PREFIX,
  sanitizeNameComponent,
  type ToolOutputStore,
  type StoreFileSystem,
} from './services/toolOutputStore.js';
export {
  READ_TOOL_OUTPUT_TOOL_NAME,
  READ_LIMITS,
  readToolOutput,
  resolveToolOutputFile,
  validateReadToolOutputParams,
  compileReadPattern,
  ToolOutputReadError,
  type ReadToolOutputParams,
  type ReadToolOutputResult,
  type ToolOutputAccess,
  type ToolOutputReadErrorCode,
} from './services/toolOutputReader.js';
export {
  applyRetention,
  findExpiredSessionFolders,
  removeSessionFolder,
  DAY_MS,
  type RetentionOptions,
  type RetentionReport,
  type SessionFolder,
  type FindExpiredOptions,
} from './services/retention.js';
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
// Host integration (integration/), settings files, metrics. The read-back tool class itself
// (bound to gemini-cli-core at load time) is `@toolmask/core/read-tool-output`.
export {
  installToolOutputMasking,
  getToolOutputMaskingInstallation,
  DEFAULT_IDLE_GAP_MS,
  type InstallToolOutputMaskingOptions,
  type MaskingPass,
  type ToolOutputMaskingInstallation,
} from './integration/installToolOutputMasking.js';
export {
  withToolOutputMasking,
  reportSettingsError,
  type ToolOutputMaskingOptions,
  type ToolOutputMaskingHost,
  type ToolOutputMaskingHostConfig,
} from './integration/maskingHost.js';
export {
  coreMaskingOffParameters,
  disableCoreMasking,
  isCoreMaskingOff,
  CORE_MASKING_NEVER,
} from './integration/coreMasking.js';
export {
  writeBackMaskedHistory,
  collectPartReplacements,
  applyPartReplacements,
  type WriteBackResult,
  type WritableChat,
} from './integration/historyWriteBack.js';
export {
  hostCommonAttributes,
  type CommonAttributesSource,
} from './integration/commonAttributes.js';
export {
  parseSettingsText,
  SettingsFileError,
  ToolOutputMaskingSettingsFiles,
  parseToolOutputMaskingSettings,
  readToolOutputMaskingSettingsFile,
  userSettingsPath,
  workspaceSettingsPath,
  type SettingsScope,
  type SettingsLayer,
  type SettingsFilesOptions,
  type ParsedSettingsBlock,
  type ReadSettingsFileResult,
  type SettingsFileSystem,
} from './config/settingsFile.js';
export {
  recordMaskingMetrics,
  passOutcome,
  METER_NAME,
  METRIC_TOKENS_SAVED,
  METRIC_MASKED_COUNT,
  METRIC_FAILURE_COUNT,
  METRIC_PASS_DURATION,
  PASS_DURATION_BUCKETS_MS,
  type PassOutcome,
} from './telemetry/metrics.js';
