/**
 * Telemetry through the host's own OpenTelemetry SDK: the Config starts core's SDK with a local
 * outfile; toolmask's log event and metrics must land in that file next to core's own records,
 * with the host's common attributes. (Its own file: the SDK is process-wide.)
 */
import * as fs from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Storage, type Config } from '@google/gemini-cli-core';
import {
  logRecords,
  metricDataPoints,
  readTelemetryFile,
} from '@toolmask/test-support/telemetry-file';
import {
  runTelemetrySession,
  type TelemetrySession,
} from '@toolmask/test-support/telemetry-session';
import { installToolOutputMasking, type MaskingPass } from './installToolOutputMasking.js';
import {
  METRIC_MASKED_COUNT,
  METRIC_PASS_DURATION,
  METRIC_TOKENS_SAVED,
} from '../telemetry/metrics.js';

const EVENT = 'gemini_cli.tool_output_masking';

let session: TelemetrySession;
let config: Config;
let passes: MaskingPass[] = [];
let records: unknown[] = [];

beforeAll(async () => {
  session = await runTelemetrySession({
    install: installToolOutputMasking,
    label: 'toolmask-telemetry',
    rounds: 6,
    // The floor warm rule: masks in this short session (the rule is not the subject).
    settings: {
      toolProtectionThreshold: 3_000,
      minPrunableTokensThreshold: 1_000,
      warmRule: 'floor',
    },
    outputText: (round) => `line of output ${round} ${'y'.repeat(50)}\n`.repeat(200),
  });
  ({ config, passes } = session);
  records = readTelemetryFile(session.outfile);
});

afterAll(async () => {
  await session.close();
});

test('the gemini_cli.tool_output_masking record arrives in the host exporter with the common attributes', () => {
  const masking = passes.filter((p) => p.result.maskedCount > 0);
  expect(masking.length).toBeGreaterThan(0);
  const events = logRecords(records, EVENT);
  expect(events).toHaveLength(masking.length);
  const installationIdFile = Storage.getInstallationIdPath();
  for (const [index, event] of events.entries()) {
    const result = masking[index]!.result;
    expect(event.attributes).toMatchObject({
      'event.name': EVENT,
      'session.id': config.getSessionId(),
      interactive: false,
      masked_count: result.maskedCount,
      tokens_before: result.tokensBefore,
      tokens_after: result.tokensAfter,
      total_prunable_tokens: result.totalPrunableTokens,
    });
    expect(typeof event.attributes['event.timestamp']).toBe('string');
    // Core creates the installation id file for its own events; toolmask reads the same one.
    expect(fs.existsSync(installationIdFile)).toBe(true);
    expect(event.attributes['installation.id']).toBe(
      fs.readFileSync(installationIdFile, 'utf8').trim(),
    );
  }
  // Same pipeline as core's own events: same scope name, same resource.
  const coreEvent = records.find(
    (r) =>
      typeof (r as { attributes?: Record<string, unknown> }).attributes?.['event.name'] ===
        'string' &&
      String((r as { attributes: Record<string, unknown> }).attributes['event.name']).startsWith(
        'gemini_cli.',
      ) &&
      (r as { attributes: Record<string, unknown> }).attributes['event.name'] !== EVENT,
  ) as { resource?: unknown; instrumentationScope?: { name?: string } } | undefined;
  expect(coreEvent).toBeDefined();
  expect(events[0]!.instrumentationScope?.name).toBe(coreEvent!.instrumentationScope?.name);
  expect(JSON.stringify(events[0]!.resource)).toBe(JSON.stringify(coreEvent!.resource));
});

test('the metrics arrive through the host meter provider with the expected attributes', () => {
  const masked = passes.flatMap((p) => p.result.offloaded);
  const common = { 'session.id': config.getSessionId(), interactive: false };

  const maskedPoints = metricDataPoints(records, METRIC_MASKED_COUNT);
  expect(maskedPoints.length).toBeGreaterThan(0);
  expect(maskedPoints.reduce((sum, p) => sum + Number(p.value), 0)).toBe(masked.length);
  for (const point of maskedPoints) {
    expect(point.attributes).toMatchObject({ ...common, function_name: 'run_shell_command' });
  }

  const savedPoints = metricDataPoints(records, METRIC_TOKENS_SAVED);
  expect(savedPoints.reduce((sum, p) => sum + Number(p.value), 0)).toBe(
    masked.reduce((sum, o) => sum + Math.round(o.tokensBefore - o.tokensAfter), 0),
  );

  const durationPoints = metricDataPoints(records, METRIC_PASS_DURATION);
  const count = durationPoints.reduce(
    (sum, p) => sum + Number((p.value as { count?: number }).count ?? 0),
    0,
  );
  expect(count).toBe(passes.length);
  expect(durationPoints.map((p) => p.attributes['outcome']).sort()).toEqual([
    'masked',
    'unchanged',
  ]);
  for (const point of durationPoints) expect(point.attributes).toMatchObject(common);
});
