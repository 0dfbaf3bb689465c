/**
 * Emits toolmask's events through the host's OpenTelemetry logger (`gemini-cli`), so they land
 * in the same exporter, with the same resource, as the host's own events. The logger is looked
 * up at emit time: a host may start its SDK after toolmask is loaded.
 */
import { logs, type AnyValueMap } from '@opentelemetry/api-logs';
import type { ToolOutputMaskingEvent } from './toolOutputMaskingEvent.js';

export const TELEMETRY_SCOPE = 'gemini-cli';

export function logToolOutputMasking(
  event: ToolOutputMaskingEvent,
  common: AnyValueMap = {},
): void {
  logs.getLogger(TELEMETRY_SCOPE).emit({
    body: event.toLogBody(),
    attributes: event.toOpenTelemetryAttributes(common),
  });
}
