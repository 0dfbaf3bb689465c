import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { metrics } from '@opentelemetry/api';
import {
  DataPointType,
  MeterProvider,
  MetricReader,
  type HistogramMetricData,
  type MetricData,
  type SumMetricData,
} from '@opentelemetry/sdk-metrics';
import {
  METRIC_FAILURE_COUNT,
  METRIC_MASKED_COUNT,
  METRIC_PASS_DURATION,
  METRIC_TOKENS_SAVED,
  passOutcome,
  recordMaskingMetrics,
} from './metrics.js';
import type { MaskingResult } from '../services/maskingTypes.js';

class TestReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

type PassResult = Pick<MaskingResult, 'maskedCount' | 'failures' | 'offloaded' | 'durationMs'>;

const MASKED: PassResult = {
  maskedCount: 2,
  durationMs: 3.5,
  failures: [{ toolName: 'read_file', callId: 'c3', code: 'ENOSPC', message: 'disk full' }],
  offloaded: [
    {
      toolName: 'run_shell_command',
      callId: 'c1',
      filePath: '/t/a.txt',
      bytes: 4000,
      tokensBefore: 1000,
      tokensAfter: 100,
    },
    {
      toolName: 'read_file',
      callId: 'c2',
      filePath: '/t/b.txt',
      bytes: 2000,
      tokensBefore: 500,
      tokensAfter: 80,
    },
  ],
};

describe('recordMaskingMetrics', () => {
  let reader: TestReader;
  let provider: MeterProvider;

  beforeEach(() => {
    reader = new TestReader();
    provider = new MeterProvider({ readers: [reader] });
    metrics.setGlobalMeterProvider(provider);
  });

  afterEach(async () => {
    metrics.disable();
    await provider.shutdown();
  });

  async function collect(): Promise<Map<string, MetricData>> {
    const { resourceMetrics } = await reader.collect();
    const byName = new Map<string, MetricData>();
    for (const scope of resourceMetrics.scopeMetrics) {
      expect(scope.scope.name).toBe('gemini-cli');
      for (const metric of scope.metrics) byName.set(metric.descriptor.name, metric);
    }
    return byName;
  }

  test('counts masked outputs and tokens saved per tool, failures per code, and the pass duration', async () => {
    const common = { 'session.id': 's-1', 'installation.id': 'i-1', interactive: false };
    recordMaskingMetrics(MASKED, common);
    const byName = await collect();

    const masked = byName.get(METRIC_MASKED_COUNT) as SumMetricData;
    expect(masked.dataPointType).toBe(DataPointType.SUM);
    expect(masked.isMonotonic).toBe(true);
    expect(masked.dataPoints.map((p) => [p.attributes['function_name'], p.value]).sort()).toEqual([
      ['read_file', 1],
      ['run_shell_command', 1],
    ]);
    for (const point of masked.dataPoints) expect(point.attributes).toMatchObject(common);

    const saved = byName.get(METRIC_TOKENS_SAVED) as SumMetricData;
    expect(saved.dataPoints.map((p) => [p.attributes['function_name'], p.value]).sort()).toEqual([
      ['read_file', 420],
      ['run_shell_command', 900],
    ]);

    const failures = byName.get(METRIC_FAILURE_COUNT) as SumMetricData;
    expect(failures.dataPoints).toHaveLength(1);
    expect(failures.dataPoints[0]?.attributes).toMatchObject({
      ...common,
      function_name: 'read_file',
      error_code: 'ENOSPC',
    });

    const duration = byName.get(METRIC_PASS_DURATION) as HistogramMetricData;
    expect(duration.dataPointType).toBe(DataPointType.HISTOGRAM);
    expect(duration.descriptor.unit).toBe('ms');
    expect(duration.dataPoints).toHaveLength(1);
    expect(duration.dataPoints[0]?.value.count).toBe(1);
    expect(duration.dataPoints[0]?.value.sum).toBe(3.5);
    expect(duration.dataPoints[0]?.attributes).toMatchObject({ ...common, outcome: 'masked' });
  });

  test('a pass that masked nothing records only its duration', async () => {
    recordMaskingMetrics({ maskedCount: 0, failures: [], offloaded: [], durationMs: 0.2 });
    const byName = await collect();
    const duration = byName.get(METRIC_PASS_DURATION) as HistogramMetricData;
    expect(duration.dataPoints[0]?.attributes).toEqual({ outcome: 'unchanged' });
    for (const name of [METRIC_MASKED_COUNT, METRIC_TOKENS_SAVED, METRIC_FAILURE_COUNT]) {
      expect((byName.get(name) as SumMetricData | undefined)?.dataPoints ?? []).toEqual([]);
    }
  });

  test('instruments follow the global provider when the host restarts its SDK', async () => {
    recordMaskingMetrics(MASKED);
    metrics.disable();
    const second = new TestReader();
    const secondProvider = new MeterProvider({ readers: [second] });
    metrics.setGlobalMeterProvider(secondProvider);
    recordMaskingMetrics(MASKED);
    const { resourceMetrics } = await second.collect();
    const names = resourceMetrics.scopeMetrics.flatMap((s) =>
      s.metrics.map((m) => m.descriptor.name),
    );
    expect(names).toContain(METRIC_MASKED_COUNT);
    await secondProvider.shutdown();
  });
});

test('without an SDK recording is a silent no-op', () => {
  metrics.disable();
  expect(() => recordMaskingMetrics(MASKED, { 'session.id': 'x' })).not.toThrow();
});

test('passOutcome', () => {
  expect(passOutcome({ maskedCount: 1, failures: [] })).toBe('masked');
  expect(passOutcome(MASKED)).toBe('masked');
  expect(passOutcome({ maskedCount: 0, failures: MASKED.failures })).toBe('failed');
  expect(passOutcome({ maskedCount: 0, failures: [] })).toBe('unchanged');
});
