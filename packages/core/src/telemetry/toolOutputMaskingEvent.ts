/**
 * The `gemini_cli.tool_output_masking` event: one per pass that masked something or failed to.
 * Field names match gemini-cli's own event, so existing dashboards keep working; toolmask adds
 * the fields after `total_prunable_tokens`. Documented in docs/telemetry.md.
 */
import type { AnyValueMap } from '@opentelemetry/api-logs';

export const EVENT_TOOL_OUTPUT_MASKING = 'gemini_cli.tool_output_masking';

export interface ToolOutputMaskingEventFields {
  tokens_before: number;
  tokens_after: number;
  masked_count: number;
  total_prunable_tokens: number;
  /** Outputs that should have been masked but were left whole (write or serialization error). */
  failed_count: number;
  /** UTF-8 bytes written to disk by this pass (reused files count too). */
  bytes_offloaded: number;
  duration_ms: number;
  /** `threshold`, `cold_cache`, `oversized` or `room` (maskingTrigger.ts): what made the pass mask. */
  trigger: string;
  /** Comma-separated failure codes (`ENOSPC,SERIALIZE`), empty when none. */
  failure_codes: string;
  /** Masked outputs the session had since replaced (read again, edited, run again). */
  superseded_count: number;
}

export class ToolOutputMaskingEvent {
  readonly 'event.name' = EVENT_TOOL_OUTPUT_MASKING;
  readonly 'event.timestamp': string;

  constructor(
    readonly fields: ToolOutputMaskingEventFields,
    timestampMs: number,
  ) {
    this['event.timestamp'] = new Date(timestampMs).toISOString();
  }

  toOpenTelemetryAttributes(common: AnyValueMap = {}): AnyValueMap {
    return {
      ...common,
      'event.name': this['event.name'],
      'event.timestamp': this['event.timestamp'],
      ...this.fields,
    };
  }

  toLogBody(): string {
    const { masked_count, tokens_before, tokens_after, failed_count } = this.fields;
    const failed = failed_count > 0 ? `, ${failed_count} left unmasked after errors` : '';
    return `Tool output masking: masked ${masked_count} tool outputs, saved ${tokens_before - tokens_after} tokens${failed}.`;
  }
}
