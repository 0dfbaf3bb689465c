/**
 * `@toolmask/core`: tool output masking for agents built on gemini-cli-style cores.
 *
 * - A host built on `@google/gemini-cli-core` calls `installToolOutputMasking(config)`.
 * - Any other host (a replay, a gateway) runs `createMaskingMiddleware(service, { host })` before
 *   each model request.
 *
 * Tools and tests find more behind explicit subpaths: `@toolmask/core/settings` (declarations,
 * settings files), `@toolmask/core/storage` (the output store, its layout, the reader, retention,
 * gemini-cli's paths), `@toolmask/core/telemetry` (events and metrics), `@toolmask/core/estimator`
 * (the token model, for benchmarks) and `@toolmask/core/read-tool-output` (the gemini-cli tool
 * class). Nothing else is reachable.
 */
export {
  installToolOutputMasking,
  getToolOutputMaskingInstallation,
} from './geminiCliHost/installToolOutputMasking.js';
export type {
  InstallToolOutputMaskingOptions,
  MaskingPass,
  ToolOutputMaskingInstallation,
} from './geminiCliHost/installationTypes.js';
export { coreMaskingOffParameters } from './geminiCliHost/coreMasking.js';

export {
  createMaskingMiddleware,
  DEFAULT_IDLE_GAP_MS,
  type MaskingMiddleware,
  type MaskingMiddlewareOptions,
  type MaskingRequest,
  type MaskedRequest,
} from './services/maskingMiddleware.js';
export { CACHE_ECONOMICS, type CacheEconomics } from './services/cacheEconomics.js';
export {
  ToolOutputMaskingService,
  type ToolOutputMaskingServiceDeps,
  type MaskingTuning,
} from './services/toolOutputMaskingService.js';
export type {
  Content,
  Part,
  MaskingHost,
  MaskOptions,
  MaskingResult,
  MaskingFailure,
  OffloadedOutput,
  PartLocation,
} from './services/maskingTypes.js';

export {
  SETTINGS,
  resolveToolOutputMaskingConfig,
  validateToolOutputMaskingSettings,
  ToolOutputMaskingSettingsError,
  type ToolOutputMaskingSettings,
  type ToolOutputMaskingConfig,
} from './config/toolOutputMaskingSettings.js';

export {
  ToolOutputMaskingEvent,
  EVENT_TOOL_OUTPUT_MASKING,
  type ToolOutputMaskingEventFields,
} from './telemetry/toolOutputMaskingEvent.js';

export {
  readToolOutput,
  ToolOutputReadError,
  READ_TOOL_OUTPUT_TOOL_NAME,
  type ReadToolOutputParams,
  type ReadToolOutputResult,
  type ToolOutputAccess,
  type ToolOutputReadErrorCode,
} from './storage/toolOutputReader.js';

export {
  isReadBackTool,
  parseMaskedSnippet,
  searchToolNameBeside,
  type ParsedMaskedSnippet,
} from './services/maskedSnippet.js';
export { estimateTokenCountSync } from './utils/tokenCalculation.js';
