/**
 * The telemetry event of one pass (`tool_output_masking`, docs/telemetry.md), from its result:
 * tokens before and after, outputs masked and failed, bytes offloaded, its duration rounded to
 * the microsecond, what triggered it, the distinct failure codes and the superseded outputs.
 */
import type { MaskingResult } from '../maskingTypes.js';
import { ToolOutputMaskingEvent } from '../../telemetry/toolOutputMaskingEvent.js';

/** The event of a pass that ended with `result`, stamped `timestampMs`. */
export function passEvent(
  result: MaskingResult,
  trigger: string,
  timestampMs: number,
): ToolOutputMaskingEvent {
  return new ToolOutputMaskingEvent(
    {
      tokens_before: result.tokensBefore,
      tokens_after: result.tokensAfter,
      masked_count: result.maskedCount,
      total_prunable_tokens: result.totalPrunableTokens,
      failed_count: result.failures.length,
      bytes_offloaded: result.offloaded.reduce((sum, item) => sum + item.bytes, 0),
      duration_ms: Math.round(result.durationMs * 1000) / 1000,
      trigger,
      failure_codes: [...new Set(result.failures.map((failure) => failure.code))].join(','),
      superseded_count: result.supersededCount,
    },
    timestampMs,
  );
}
