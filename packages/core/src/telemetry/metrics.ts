/**
 * OpenTelemetry metrics of the masking pass, recorded through the host's global meter provider
 * (`metrics.getMeter('gemini-cli')`, the meter gemini-cli's own metrics use), so they reach the
 * same exporter with the same resource. The meter is looked up at record time: a host may start
 * its SDK after toolmask is loaded, or restart it. Without an SDK every call is a no-op.
 *
 * Names follow gemini-cli's convention (`gemini_cli.<area>.<thing>[.count|.duration]`, tool names
 * in `function_name`). Documented in docs/telemetry.md.
 */
import {
  metrics,
  ValueType,
  type Attributes,
  type Counter,
  type Histogram,
  type Meter,
  type MeterProvider,
} from '@opentelemetry/api';

/**
 * What the metrics read of a pass: the fields of its result (`MaskingResult`, which has them
 * all), stated here so that telemetry depends on nothing above it.
 */
export interface MaskingPassFigures {
  maskedCount: number;
  failures: readonly { toolName: string; code: string }[];
  offloaded: readonly { toolName: string; tokensBefore: number; tokensAfter: number }[];
  /** Wall time of the pass in milliseconds. */
  durationMs: number;
}

export const METER_NAME = 'gemini-cli';

/** Counter: estimated tokens removed from the history, per tool (`function_name`). */
export const METRIC_TOKENS_SAVED = 'gemini_cli.tool_output_masking.tokens_saved';
/** Counter: tool outputs masked (saved to disk, replaced by a snippet), per tool (`function_name`). */
export const METRIC_MASKED_COUNT = 'gemini_cli.tool_output_masking.masked.count';
/** Counter: outputs left whole because saving them failed, per `function_name` and `error_code`. */
export const METRIC_FAILURE_COUNT = 'gemini_cli.tool_output_masking.failure.count';
/** Histogram (ms): wall time of each pass, tagged by `outcome`. */
export const METRIC_PASS_DURATION = 'gemini_cli.tool_output_masking.duration';

/** Bucket boundaries (ms): a pass usually takes well under a millisecond, a writing one a few. */
export const PASS_DURATION_BUCKETS_MS = [
  0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000,
];

export type PassOutcome = 'masked' | 'unchanged' | 'failed';

interface Instruments {
  tokensSaved: Counter;
  maskedCount: Counter;
  failureCount: Counter;
  duration: Histogram;
}

const instrumentsByMeter = new WeakMap<Meter, Instruments>();

function instruments(provider: Pick<MeterProvider, 'getMeter'>): Instruments {
  const meter = provider.getMeter(METER_NAME);
  let found = instrumentsByMeter.get(meter);
  if (!found) {
    found = {
      tokensSaved: meter.createCounter(METRIC_TOKENS_SAVED, {
        description: 'Estimated tokens removed from the history by tool output masking.',
        valueType: ValueType.INT,
      }),
      maskedCount: meter.createCounter(METRIC_MASKED_COUNT, {
        description: 'Counts tool outputs masked (saved to disk and replaced by a snippet).',
        valueType: ValueType.INT,
      }),
      failureCount: meter.createCounter(METRIC_FAILURE_COUNT, {
        description: 'Counts tool outputs left whole because saving them failed.',
        valueType: ValueType.INT,
      }),
      duration: meter.createHistogram(METRIC_PASS_DURATION, {
        description: 'Duration of tool output masking passes in milliseconds.',
        unit: 'ms',
        valueType: ValueType.DOUBLE,
        advice: { explicitBucketBoundaries: PASS_DURATION_BUCKETS_MS },
      }),
    };
    instrumentsByMeter.set(meter, found);
  }
  return found;
}

export function passOutcome(
  result: Pick<MaskingPassFigures, 'maskedCount' | 'failures'>,
): PassOutcome {
  if (result.maskedCount > 0) return 'masked';
  return result.failures.length > 0 ? 'failed' : 'unchanged';
}

/**
 * Records one pass: its duration (every pass), and per masked output its tool and tokens saved,
 * per failure its tool and error code. `attributes` (the host's common attributes, e.g.
 * `session.id`, `installation.id`, `interactive`) go on every data point. Never throws.
 */
export function recordMaskingMetrics(
  result: MaskingPassFigures,
  attributes: Attributes = {},
  /** A host's own meter provider; default the global one. */
  provider: Pick<MeterProvider, 'getMeter'> = metrics,
): void {
  try {
    const { tokensSaved, maskedCount, failureCount, duration } = instruments(provider);
    for (const output of result.offloaded) {
      // A fresh attributes object per data point: the SDK keeps the object, and core's file
      // exporter prints an object it has already seen in the same export as "[Circular]".
      maskedCount.add(1, { ...attributes, function_name: output.toolName });
      tokensSaved.add(Math.max(0, Math.round(output.tokensBefore - output.tokensAfter)), {
        ...attributes,
        function_name: output.toolName,
      });
    }
    for (const failure of result.failures) {
      failureCount.add(1, {
        ...attributes,
        function_name: failure.toolName,
        error_code: failure.code,
      });
    }
    if (Number.isFinite(result.durationMs) && result.durationMs >= 0) {
      duration.record(result.durationMs, { ...attributes, outcome: passOutcome(result) });
    }
  } catch {
    // Telemetry must never break a turn.
  }
}
