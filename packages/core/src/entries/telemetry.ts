/**
 * `@toolmask/core/telemetry`: the masking event and metrics, emitted through the global
 * OpenTelemetry API (`gemini-cli` logger and meter). For hosts that run the pass themselves
 * (the gateway) and report it like the installation does.
 */
export {
  ToolOutputMaskingEvent,
  EVENT_TOOL_OUTPUT_MASKING,
  type ToolOutputMaskingEventFields,
} from '../telemetry/toolOutputMaskingEvent.js';
export { logToolOutputMasking, TELEMETRY_SCOPE } from '../telemetry/loggers.js';
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
} from '../telemetry/metrics.js';
