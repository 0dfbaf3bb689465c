/**
 * A gateway's `close` (gateway.ts): requests in flight, then the queued output writes, then the
 * telemetry, within one timeout.
 */
import type { RequestsInFlight } from './route-table.js';

export interface Closing {
  retention: { stop(): void; first: Promise<unknown> };
  dashboard: { close(): void };
  inFlight: RequestsInFlight;
  /** The output write queue (state/outputs/queued-output-store.ts), when the wiring has one. */
  queue: { flush(timeoutMs?: number): Promise<boolean>; readonly queuedBytes: number } | undefined;
  telemetry: { shutdown(): Promise<void> };
  log: (line: string) => void;
}

/**
 * The gateway's `close`: requests in flight first, then the queued outputs, within what is left of
 * the timeout (a disk that hangs must not hold the stop; what is left unwritten is said, and the
 * client's next request to any gateway carries those outputs again), then the telemetry.
 */
export function closer(parts: Closing): (timeoutMs?: number) => Promise<void> {
  const { retention, dashboard, inFlight, queue, telemetry, log } = parts;
  return async (timeoutMs = 30_000) => {
    retention.stop();
    dashboard.close();
    const deadline = performance.now() + timeoutMs;
    await inFlight.settled(timeoutMs);
    const left = Math.max(0, Math.round(deadline - performance.now()));
    if (queue && !(await queue.flush(left))) {
      log(
        `[toolmask gateway] stopped with ${queue.queuedBytes} bytes of outputs not yet written (the disk did not answer within ${left} ms)`,
      );
    }
    await retention.first;
    await telemetry.shutdown();
  };
}
