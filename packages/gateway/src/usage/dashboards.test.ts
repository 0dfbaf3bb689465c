/**
 * The dashboards in docs/dashboards/ are built on the metric names the gateway really exports.
 * After traffic with masking, a masking failure and the provider's usage (a Gemini session, and a
 * Claude Code session whose provider reports cache writes):
 *
 * - every metric a query of `toolmask-grafana.json` uses appears in a real `/metrics` scrape
 *   (OpenTelemetry's Prometheus exporter), and every metric family of the scrape is charted;
 * - every metric type of `toolmask-cloud-monitoring.json` names, after its documented prefix, a
 *   metric the OpenTelemetry SDK exported over OTLP, and every exported metric is charted.
 */
import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createFileToolOutputStore, type ToolOutputStore } from '@toolmask/core/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../listen-gateway.js';
import {
  gatewayFixture,
  settled,
  shellOutput,
  startTestGateway,
} from '../test-utils/gemini-client.js';
import { shellSessionThroughGateway } from '../test-utils/shell-session.js';
import { claudeLikeUpstream, runClaudeLikeSession } from '../test-utils/claude-like-session.js';

const DASHBOARDS = new URL('../../../../docs/dashboards/', import.meta.url);
/** Where the Cloud Monitoring dashboard's metric types come from (docs/telemetry.md). */
const CLOUD_PREFIXES = ['custom.googleapis.com/gemini_cli/', 'workload.googleapis.com/'];
const FAIL_MARKER = 'FAIL-THIS-WRITE';

let scrape = '';
const exported = new Set<string>();
let cleanups: Array<() => Promise<void>> = [];

/** An output store that fails like a full disk for outputs holding the marker. */
function storeWithFullDisk(): ToolOutputStore {
  const store = createFileToolOutputStore();
  return {
    save(directory, fileName, text) {
      if (text.includes(FAIL_MARKER)) {
        return Promise.reject(Object.assign(new Error('no space left'), { code: 'ENOSPC' }));
      }
      return store.save(directory, fileName, text);
    },
  };
}

/** An OTLP/HTTP receiver that keeps the names of the metrics it is sent (JSON encoding). */
async function otlpReceiver(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/v1/metrics') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceMetrics?: Array<{ scopeMetrics?: Array<{ metrics?: Array<{ name: string }> }> }>;
        };
        for (const resource of body.resourceMetrics ?? []) {
          for (const scope of resource.scopeMetrics ?? []) {
            for (const metric of scope.metrics ?? []) exported.add(metric.name);
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A second gateway, in front of an Anthropic fake that reports cache writes, after a session. */
async function claudeSessionThroughGateway(otlpEndpoint: string): Promise<RunningGateway> {
  const fixture = await gatewayFixture();
  cleanups.push(fixture.cleanup);
  const upstream = await claudeLikeUpstream(2, (step) => ({
    input: 50,
    cacheRead: 900 * step,
    cacheWrite: 400,
  }));
  cleanups.push(() => upstream.close());
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { anthropic: upstream.url },
    otlpEndpoint,
  });
  cleanups.push(() => running.close());
  await runClaudeLikeSession(running.url);
  await settled(running);
  return running;
}

beforeAll(async () => {
  const receiver = await otlpReceiver();
  cleanups.push(receiver.close);
  const { running } = await shellSessionThroughGateway(
    {
      settings: { toolProtectionThreshold: 4_000, minPrunableTokensThreshold: 2_000 },
      steps: 7,
      usage: (step) => ({ prompt: 1_000 * (step + 1), cached: 800 * step }),
      gateway: { otlpEndpoint: receiver.url, stores: { outputs: storeWithFullDisk() } },
      output: (call, index) => shellOutput(index === 1 ? `${FAIL_MARKER} ${call.id}` : call.id),
    },
    cleanups,
  );
  const claude = await claudeSessionThroughGateway(receiver.url);
  // What the two gateways export together: the families of both scrapes, one OTLP receiver.
  scrape = [
    await (await fetch(`${running.url}/metrics`)).text(),
    await (await fetch(`${claude.url}/metrics`)).text(),
  ].join('\n');
  // Closing flushes the OTLP exporter once more.
  await Promise.all([running.close(), claude.close()]);
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function readDashboard(name: string): Promise<unknown> {
  return JSON.parse(await fs.readFile(fileURLToPath(new URL(name, DASHBOARDS)), 'utf8'));
}

/** Every string value under `key` anywhere in `value`. */
function stringsUnder(value: unknown, key: string, found: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const item of value) stringsUnder(item, key, found);
  } else if (value && typeof value === 'object') {
    for (const [name, inner] of Object.entries(value)) {
      if (name === key && typeof inner === 'string') found.push(inner);
      else stringsUnder(inner, key, found);
    }
  }
  return found;
}

/** Sample names of a Prometheus text exposition. */
function sampleNames(text: string): Set<string> {
  return new Set(
    text
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'))
      .map((line) => /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0] ?? ''),
  );
}

/** The family of a sample name (a histogram's `_bucket`, `_sum`, `_count` are one). */
function family(name: string): string {
  return name.replace(/_(bucket|sum|count)$/, '');
}

describe('docs/dashboards/toolmask-grafana.json', () => {
  it('uses only metrics of a real /metrics scrape, and charts every family of it', async () => {
    const dashboard = await readDashboard('toolmask-grafana.json');
    const queries = [...stringsUnder(dashboard, 'expr'), ...stringsUnder(dashboard, 'definition')];
    expect(queries.length).toBeGreaterThan(15);
    const used = new Set(
      queries.flatMap((query) => query.match(/\b(?:gemini_cli|toolmask)_[a-z0-9_]+\b/g) ?? []),
    );
    const scraped = sampleNames(scrape);
    for (const name of used) expect(scraped, `${name} is not in the scrape`).toContain(name);
    const scrapedFamilies = new Set(
      [...scraped].filter((name) => name !== 'target_info').map(family),
    );
    // Histograms export _bucket, _sum and _count under one family.
    const usedFamilies = new Set(
      [...used].map((name) => (scrapedFamilies.has(name) ? name : family(name))),
    );
    expect([...usedFamilies].sort()).toEqual([...scrapedFamilies].sort());
    // The masking metrics and the real usage counters are all there.
    for (const name of [
      'gemini_cli_tool_output_masking_masked_count_total',
      'gemini_cli_tool_output_masking_tokens_saved_total',
      'gemini_cli_tool_output_masking_failure_count_total',
      'gemini_cli_tool_output_masking_duration_bucket',
      'toolmask_gateway_requests_total',
      'toolmask_gateway_prompt_tokens_total',
      'toolmask_gateway_cached_tokens_total',
      'toolmask_gateway_cache_write_tokens_total',
      'toolmask_gateway_tokens_kept_out_total',
    ]) {
      expect(scraped).toContain(name);
    }
  });
});

describe('docs/dashboards/toolmask-cloud-monitoring.json', () => {
  it('names only metrics the OpenTelemetry SDK exports, and charts every one of them', async () => {
    const dashboard = await readDashboard('toolmask-cloud-monitoring.json');
    const types = stringsUnder(dashboard, 'filter').flatMap((filter) =>
      [...filter.matchAll(/metric\.type="([^"]+)"/g)].map((match) => match[1] as string),
    );
    expect(types.length).toBeGreaterThan(10);
    await expect.poll(() => exported.size, { timeout: 5_000 }).toBeGreaterThan(0);
    const named = new Set<string>();
    for (const type of types) {
      const prefix = CLOUD_PREFIXES.find((candidate) => type.startsWith(candidate));
      expect(prefix, `${type}: not a documented prefix`).toBeDefined();
      const name = type.slice(prefix!.length);
      expect(exported, `${name} is not exported`).toContain(name);
      named.add(name);
    }
    expect([...named].sort()).toEqual([...exported].sort());
  });
});
