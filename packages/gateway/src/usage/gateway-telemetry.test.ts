/**
 * The gateway's Prometheus exposition through the real OpenTelemetry SDK: a named replica
 * (`instance`) labels every series it serves (its own counters, the latency histogram, the
 * masking metrics core records through the same meter provider, the store failures, target_info);
 * an unnamed gateway serves the same series without that label.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayTelemetry, type GatewayTelemetry } from './gateway-telemetry.js';
import type { UsageRecord } from './usage-record.js';

const RECORD: UsageRecord = {
  at: 0,
  conversationId: 'c1',
  client: 'claude-code',
  front: 'anthropic',
  model: 'claude-sonnet',
  status: 200,
  promptTokens: 1_000,
  cachedTokens: 800,
  cacheWriteTokens: 100,
  unmaskedPromptTokens: 1_300,
  unmaskedCachedTokens: 1_100,
  unmaskedCacheWriteTokens: 100,
  outputTokens: 50,
  maskedOutputs: 1,
  newlyMasked: 1,
  tokensKeptOut: 400,
  bytesOffloaded: 2_000,
  failures: 1,
  cacheLikelyCold: false,
  gatewayMs: 1.5,
};

const PASS = {
  maskedCount: 1,
  durationMs: 0.7,
  offloaded: [
    {
      toolName: 'run_shell_command',
      callId: 'a',
      filePath: '/x',
      bytes: 2_000,
      tokensBefore: 500,
      tokensAfter: 100,
    },
  ],
  failures: [{ toolName: 'read_file', callId: 'b', code: 'ENOSPC', message: 'no space left' }],
};

let opened: GatewayTelemetry[] = [];

afterEach(async () => {
  await Promise.all(opened.map((telemetry) => telemetry.shutdown()));
  opened = [];
});

/** The exposition of a gateway that forwarded one request, masked, failed once, lost one write. */
async function exposition(instance?: string): Promise<string> {
  const telemetry = createGatewayTelemetry({
    serviceVersion: '0.0.0-test',
    ...(instance !== undefined ? { instance } : {}),
  });
  opened.push(telemetry);
  telemetry.recordRequest(RECORD);
  telemetry.recordPass(PASS, { client: 'claude-code', model: 'claude-sonnet' });
  telemetry.recordStoreFailure('usage', 'append');
  return telemetry.metricsText();
}

/** The sample lines of an exposition (no comments, no blank lines). */
function samples(text: string): string[] {
  return text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

const FAMILIES = [
  'toolmask_gateway_requests_total',
  'toolmask_gateway_prompt_tokens_total',
  'toolmask_gateway_cached_tokens_total',
  'toolmask_gateway_cache_write_tokens_total',
  'toolmask_gateway_output_tokens_total',
  'toolmask_gateway_tokens_kept_out_total',
  'toolmask_gateway_net_saved_tokens',
  'toolmask_gateway_added_latency_bucket',
  'toolmask_gateway_store_failures_total',
  'gemini_cli_tool_output_masking_tokens_saved_total',
  'gemini_cli_tool_output_masking_masked_count_total',
  'gemini_cli_tool_output_masking_failure_count_total',
  'gemini_cli_tool_output_masking_duration_bucket',
  'target_info',
];

describe('createGatewayTelemetry', () => {
  it('labels every series with the replica name given as instance', async () => {
    const lines = samples(await exposition('gateway-2'));
    for (const family of FAMILIES) {
      expect(lines.some((line) => line.startsWith(`${family}{`))).toBe(true);
    }
    for (const line of lines) expect(line).toMatch(/[{,]instance="gateway-2"[,}]/);
    // The resource names the replica the standard way too (OTLP: service.instance.id).
    expect(lines.find((line) => line.startsWith('target_info{'))).toContain(
      'service_instance_id="gateway-2"',
    );
  });

  it('without a name (or with an empty one) serves the same series without an instance label', async () => {
    const named = samples(await exposition('gateway-2'));
    for (const unnamed of [await exposition(), await exposition('')]) {
      const lines = samples(unnamed);
      for (const line of lines) expect(line).not.toMatch(/instance/);
      // Everything else is as a named replica serves it (target_info aside: it names the replica).
      const withoutName = named
        .filter((line) => !line.startsWith('target_info'))
        .map((line) => line.replace(/,?instance="gateway-2"/, '').replace('{,', '{'));
      expect(lines.filter((line) => !line.startsWith('target_info'))).toEqual(withoutName);
    }
  });

  it('adds net saved tokens per request, which can go negative', async () => {
    const telemetry = createGatewayTelemetry({ serviceVersion: '0.0.0-test' });
    opened.push(telemetry);
    // Billed: 100 plain + 800 × 0.1 + 100 × 1.25 = 305; unmasked: 100 + 1,100 × 0.1 + 100 × 1.25 = 335.
    telemetry.recordRequest(RECORD);
    const sample = async () =>
      samples(await telemetry.metricsText())
        .find((line) => line.startsWith('toolmask_gateway_net_saved_tokens{'))
        ?.split(' ')
        .at(-1);
    expect(Number(await sample())).toBeCloseTo(30, 6);
    // A request masking billed more for: 1,000 written instead of 900 read.
    telemetry.recordRequest({
      ...RECORD,
      cachedTokens: 0,
      cacheWriteTokens: 900,
      unmaskedCachedTokens: 900,
      unmaskedCacheWriteTokens: 300,
    });
    // 30 + (100 + 900 × 0.1 + 300 × 1.25) − (100 + 900 × 1.25) = 30 + 565 − 1,225.
    expect(Number(await sample())).toBeCloseTo(-630, 6);
  });

  it('counts store failures by store and operation', async () => {
    const telemetry = createGatewayTelemetry({ serviceVersion: '0.0.0-test', instance: 'g1' });
    opened.push(telemetry);
    telemetry.recordStoreFailure('conversations', 'appendDecisions');
    telemetry.recordStoreFailure('conversations', 'appendDecisions');
    telemetry.recordStoreFailure('outputs', 'save');
    telemetry.recordStoreFailure('keys', 'lookup');
    const lines = samples(await telemetry.metricsText()).filter((line) =>
      line.startsWith('toolmask_gateway_store_failures_total{'),
    );
    expect(lines.map((line) => line.replace(/,otel_scope_[a-z]+="[^"]*"/g, ''))).toEqual([
      'toolmask_gateway_store_failures_total{store="conversations",operation="appendDecisions",instance="g1"} 2',
      'toolmask_gateway_store_failures_total{store="outputs",operation="save",instance="g1"} 1',
      'toolmask_gateway_store_failures_total{store="keys",operation="lookup",instance="g1"} 1',
    ]);
  });
});
