/**
 * The gateway's telemetry through a real OpenTelemetry SDK to a loopback OTLP/HTTP receiver: the
 * masking event and metrics under the names the in-process installation uses, and the real usage.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { geminiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import {
  gatewayFixture,
  runGeminiClient,
  shellOutput,
  startTestGateway,
} from '../test-utils/gemini-client.js';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';

const cleanups = cleanUpAfterEach();

async function receiver(): Promise<{ url: string; bodies: Map<string, string[]> }> {
  const bodies = new Map<string, string[]>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const list = bodies.get(request.url ?? '') ?? [];
      list.push(Buffer.concat(chunks).toString('utf8'));
      bodies.set(request.url ?? '', list);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

/**
 * A gemini-cli session through a gateway that exports to a fresh receiver; what it received once
 * the gateway stopped (closing flushes both providers).
 */
async function exported(
  settings: Record<string, number>,
  respond: Parameters<typeof startFakeUpstream>[0],
  maxRequests: number,
): Promise<Map<string, string[]>> {
  const otlp = await receiver();
  const fixture = await gatewayFixture(settings);
  cleanups.push(fixture.cleanup);
  const upstream = await startFakeUpstream(respond);
  cleanups.push(() => upstream.close());
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { gemini: upstream.url },
    otlpEndpoint: otlp.url,
  });
  await runGeminiClient({
    url: `${running.url}/v1beta/models/m:streamGenerateContent?alt=sse`,
    prompt: 'go',
    outputFor: (call) => ({ output: shellOutput(call.id) }),
    maxRequests,
  });
  await running.close();
  return otlp.bodies;
}

interface MetricsExport {
  resourceMetrics: Array<{
    scopeMetrics: Array<{
      metrics: Array<{ name: string; sum?: { aggregationTemporality: number } }>;
    }>;
  }>;
}

describe('OTLP export', () => {
  it('sends the masking event, the masking metrics and the real usage counters', async () => {
    const bodies = await exported(
      { toolProtectionThreshold: 8_000, minPrunableTokensThreshold: 8_000 },
      (request) => {
        const contents = (request.json as { contents: unknown[] }).contents;
        const step = Math.floor(contents.length / 2);
        return geminiAnswer(
          step < 6
            ? [{ functionCall: { id: `c${step}`, name: 'run_shell_command', args: { n: step } } }]
            : [{ text: 'done' }],
          { prompt: 9_000, cached: 8_000 },
        );
      },
      10,
    );
    const logs = (bodies.get('/v1/logs') ?? []).join('\n');
    expect(logs).toContain('gemini_cli.tool_output_masking');
    expect(logs).toContain('masked_count');
    const metrics = (bodies.get('/v1/metrics') ?? []).join('\n');
    for (const name of [
      'gemini_cli.tool_output_masking.tokens_saved',
      'gemini_cli.tool_output_masking.masked.count',
      'gemini_cli.tool_output_masking.duration',
      'toolmask.gateway.requests',
      'toolmask.gateway.prompt_tokens',
      'toolmask.gateway.cached_tokens',
      'toolmask.gateway.tokens_kept_out',
    ]) {
      expect(metrics, name).toContain(`"${name}"`);
    }
  });

  it('honours OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE=delta for counters', async () => {
    const temporality = async () => {
      const bodies = await exported({}, () => geminiAnswer([{ text: 'done' }]), 1);
      return (bodies.get('/v1/metrics') ?? [])
        .flatMap((body) => (JSON.parse(body) as MetricsExport).resourceMetrics)
        .flatMap((resource) => resource.scopeMetrics)
        .flatMap((scope) => scope.metrics)
        .find((metric) => metric.name === 'toolmask.gateway.requests')?.sum?.aggregationTemporality;
    };
    // OTLP's enum: 1 delta, 2 cumulative.
    expect(await temporality()).toBe(2);
    process.env['OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE'] = 'delta';
    cleanups.push(async () => {
      delete process.env['OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE'];
    });
    expect(await temporality()).toBe(1);
  });
});
