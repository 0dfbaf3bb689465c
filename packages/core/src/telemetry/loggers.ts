/**
 * Emits toolmask's events through the host's OpenTelemetry logger (`gemini-cli`), so they land
 * in the same exporter, with the same resource, as the host's own events. The logger is looked
 * up at emit time: a host may start its SDK after toolmask is loaded.
 */
import { logs, type AnyValueMap, type LoggerProvider } from '@opentelemetry/api-logs';
import type { ToolOutputMaskingEvent } from './toolOutputMaskingEvent.js';

export const TELEMETRY_SCOPE = 'gemini-cli';

/** `provider`: a host's own logger provider; default the global one. */
export function logToolOutputMasking(
  event: ToolOutputMaskingEvent,
  common: AnyValueMap = {},
  provider: Pick<LoggerProvider, 'getLogger'> = logs,
): void {
  provider.getLogger(TELEMETRY_SCOPE).emit({
    body: event.toLogBody(),
    attributes: event.toOpenTelemetryAttributes(common),
  });
}
