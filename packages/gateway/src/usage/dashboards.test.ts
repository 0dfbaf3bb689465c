/**
 * The dashboards in docs/dashboards/ are built on the metric names the gateway really exports.
 * After traffic with masking, a masking failure and the provider's usage (a Gemini session, and a
 * Claude Code session whose provider reports cache writes):
 *
 * - every metric a query of `toolmask-grafana.json` uses appears in a real `/metrics` scrape
 *   (OpenTelemetry's Prometheus exporter), and every metric family of the scrape is charted;
 * - over two replicas of a team gateway (named by `instance`), every query of it gives what it
 *   gives over one gateway that served the traffic of both (the sum of both), whether Prometheus
 *   keeps the exposed `instance` label (`honor_labels: true`) or renames it `exported_instance`;
 *   the per-replica panel shows each replica by its name. No Prometheus server here: the queries
 *   are evaluated in-process (test-support's prometheus-query), a scrape as counters that rose
 *   from zero within the panel's range;
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
import {
  evaluate,
  labelsKey,
  scrape as scrapeTarget,
  type Sample,
} from '@toolmask/test-support/prometheus-query';
import {
  createGatewayTelemetry,
  type GatewayStoreName,
  type GatewayTelemetry,
} from './gateway-telemetry.js';
import type { UsageRecord } from './usage-record.js';
import { usageRecordOf } from '../test-utils/usage-records.js';

const DASHBOARDS = new URL('../../../../docs/dashboards/', import.meta.url);
/** Where the Cloud Monitoring dashboard's metric types come from (docs/telemetry.md). */
const CLOUD_PREFIXES = ['custom.googleapis.com/gemini_cli/', 'workload.googleapis.com/'];
const FAIL_MARKER = 'FAIL-THIS-WRITE';

let scrape = '';
const exported = new Set<string>();
let cleanups: Array<() => Promise<void>> = [];
/** The expositions of two named replicas, and of one unnamed gateway that served both's traffic. */
const replicas = { a: '', b: '', both: '' };

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

/** What a gateway counted: requests forwarded, masking passes, failed store calls. */
interface Traffic {
  requests: UsageRecord[];
  passes: Array<Parameters<GatewayTelemetry['recordPass']>>;
  storeFailures: Array<[GatewayStoreName, string]>;
}

function request(overrides: Partial<UsageRecord>): UsageRecord {
  return usageRecordOf({
    conversationId: 'c1',
    client: 'gemini-cli',
    model: 'gemini-2.5-pro',
    gatewayMs: 1,
    ...overrides,
  });
}

function pass(
  masked: Array<[tool: string, tokensBefore: number, tokensAfter: number]>,
  failed: Array<[tool: string, code: string]>,
  durationMs: number,
): Parameters<GatewayTelemetry['recordPass']>[0] {
  return {
    maskedCount: masked.length,
    durationMs,
    offloaded: masked.map(([toolName, tokensBefore, tokensAfter], index) => ({
      toolName,
      callId: `m${index}`,
      filePath: `/outputs/m${index}`,
      bytes: tokensBefore * 4,
      tokensBefore,
      tokensAfter,
    })),
    failures: failed.map(([toolName, code], index) => ({
      toolName,
      callId: `f${index}`,
      code,
      message: code,
    })),
  };
}

const GEMINI = { client: 'gemini-cli', model: 'gemini-2.5-pro' } as const;
const CLAUDE = { client: 'claude-code', model: 'claude-sonnet-4' } as const;

/**
 * Round robin without stickiness: both replicas serve the same Gemini conversation (the same
 * series on each), one of them a Claude Code conversation too.
 */
const REPLICA_A: Traffic = {
  requests: [
    request({ promptTokens: 1_000, outputTokens: 40, gatewayMs: 0.8 }),
    request({
      promptTokens: 3_000,
      cachedTokens: 1_600,
      tokensKeptOut: 900,
      // The net figures: 900 more tokens without masking, 1,500 more of them read.
      unmaskedPromptTokens: 3_900,
      unmaskedCachedTokens: 3_100,
      gatewayMs: 12,
    }),
    request({ status: 429, gatewayMs: 0.4 }),
  ],
  passes: [
    [pass([], [], 0.08), GEMINI],
    [pass([['run_shell_command', 900, 60]], [], 3.1), GEMINI],
  ],
  storeFailures: [['outputs', 'save']],
};
const REPLICA_B: Traffic = {
  requests: [
    request({ promptTokens: 2_000, cachedTokens: 800, tokensKeptOut: 400, gatewayMs: 2.4 }),
    request({ promptTokens: 4_000, cachedTokens: 3_200, outputTokens: 70, gatewayMs: 1.1 }),
    request({
      ...CLAUDE,
      front: 'anthropic',
      promptTokens: 5_000,
      cachedTokens: 3_000,
      cacheWriteTokens: 1_200,
      outputTokens: 90,
      gatewayMs: 30,
    }),
  ],
  passes: [
    [pass([['run_shell_command', 1_500, 80]], [['read_file', 'ENOSPC']], 7.5), GEMINI],
    [pass([], [['run_shell_command', 'ENOSPC']], 0.6), GEMINI],
    [
      pass(
        [
          ['read_file', 700, 50],
          ['grep', 400, 40],
        ],
        [],
        0.4,
      ),
      CLAUDE,
    ],
  ],
  storeFailures: [
    ['conversations', 'appendDecisions'],
    ['conversations', 'appendDecisions'],
    ['usage', 'append'],
    ['outputs', 'save'],
  ],
};

/** The `/metrics` text of a gateway (a replica named `instance`) after `traffic`. */
async function exposition(traffic: Traffic | Traffic[], instance?: string): Promise<string> {
  const telemetry = createGatewayTelemetry({
    serviceVersion: '0.0.0-test',
    ...(instance ? { instance } : {}),
  });
  try {
    for (const { requests, passes, storeFailures } of [traffic].flat()) {
      for (const record of requests) telemetry.recordRequest(record);
      for (const [result, attributes] of passes) telemetry.recordPass(result, attributes);
      for (const [store, operation] of storeFailures)
        telemetry.recordStoreFailure(store, operation);
    }
    return await telemetry.metricsText();
  } finally {
    await telemetry.shutdown();
  }
}

beforeAll(async () => {
  const receiver = await otlpReceiver();
  cleanups.push(receiver.close);
  const { running } = await shellSessionThroughGateway(
    {
      settings: { toolProtectionThreshold: 4_000, minPrunableTokensThreshold: 2_000 },
      steps: 7,
      usage: (step) => ({ prompt: 1_000 * (step + 1), cached: 800 * step }),
      // No write queue: the write comes before the mask (as on a team's replica), so the disk's
      // failure is the pass's, and its failure count is exported.
      gateway: {
        otlpEndpoint: receiver.url,
        stores: { outputs: storeWithFullDisk() },
        _internal: { outputQueueBytes: 0 },
      },
      output: (call, index) => shellOutput(index === 1 ? `${FAIL_MARKER} ${call.id}` : call.id),
    },
    cleanups,
  );
  const claude = await claudeSessionThroughGateway(receiver.url);
  replicas.a = await exposition(REPLICA_A, 'replica-a');
  replicas.b = await exposition(REPLICA_B, 'replica-b');
  replicas.both = await exposition([REPLICA_A, REPLICA_B]);
  // What the two gateways export together: the families of both scrapes, one OTLP receiver. The
  // store failures are counted where a store is called (a team gateway's Redis stores): a
  // replica's exposition has them.
  scrape = [
    await (await fetch(`${running.url}/metrics`)).text(),
    await (await fetch(`${claude.url}/metrics`)).text(),
    replicas.b,
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

/** Grafana's variables as a dashboard opened on "All" over a one-hour range substitutes them. */
function substituted(query: string): string {
  const result = query
    .replaceAll('$model', '.*')
    .replaceAll('$__rate_interval', '1m')
    .replaceAll('$__range', '1h');
  // `$1` and the like are label_replace's groups (Grafana leaves names it does not know).
  expect(result, 'a variable the test does not substitute').not.toMatch(/\$[a-zA-Z_{]/);
  return result;
}

/** A query's result as sorted `{labels} value` lines (values to 12 significant digits). */
function shown(samples: Sample[]): string[] {
  return samples
    .map(({ labels, value }) => `${labelsKey(labels)} ${Number(value.toPrecision(12))}`)
    .sort();
}

interface Panel {
  title: string;
  targets?: Array<{ expr: string }>;
}

const PER_REPLICA = 'Requests per second per replica';

describe('docs/dashboards/toolmask-grafana.json over the replicas of a team gateway', () => {
  // Prometheus keeps the replica's `instance` label, or renames it `exported_instance` and puts
  // the scrape target's address in `instance`.
  describe.each([
    { honorLabels: true, mode: 'honor_labels: true' },
    { honorLabels: false, mode: 'honor_labels: false' },
  ])('scraped with $mode', ({ honorLabels }) => {
    const target = (instance: string) => ({ job: 'toolmask-gateway', instance, honorLabels });
    const twoReplicas = () => [
      ...scrapeTarget(replicas.a, target('10.0.0.11:8787')),
      ...scrapeTarget(replicas.b, target('10.0.0.12:8787')),
    ];
    const oneGateway = () => scrapeTarget(replicas.both, target('10.0.0.10:8787'));

    it('every query gives over both replicas what one gateway serving both gives', async () => {
      const dashboard = (await readDashboard('toolmask-grafana.json')) as { panels: Panel[] };
      const panels = dashboard.panels.filter(
        (panel) => panel.targets && panel.title !== PER_REPLICA,
      );
      expect(panels.length).toBeGreaterThan(12);
      for (const panel of panels) {
        for (const { expr } of panel.targets ?? []) {
          const query = substituted(expr);
          const summed = shown(evaluate(query, twoReplicas()));
          expect(summed, `${panel.title}: ${query}`).toEqual(shown(evaluate(query, oneGateway())));
          expect(summed.length, `${panel.title}: ${query} shows nothing`).toBeGreaterThan(0);
        }
      }
      // The template variable lists each model once, whichever replica served it.
      const [definition] = stringsUnder(dashboard, 'definition');
      const [, metric, label] = /^label_values\((\w+), (\w+)\)$/.exec(definition ?? '') ?? [];
      const values = (samples: Sample[]) =>
        [
          ...new Set(
            samples.filter((s) => s.labels.__name__ === metric).map((s) => s.labels[label!]),
          ),
        ].sort();
      expect(values(twoReplicas())).toEqual(['claude-sonnet-4', 'gemini-2.5-pro']);
      expect(values(twoReplicas())).toEqual(values(oneGateway()));
    });

    it('the stat panels and the store failures are the sums of both replicas', async () => {
      const dashboard = (await readDashboard('toolmask-grafana.json')) as { panels: Panel[] };
      const query = (title: string) =>
        substituted(
          dashboard.panels.find((panel) => panel.title === title)?.targets?.[0]?.expr ?? '',
        );
      const value = (title: string) => evaluate(query(title), twoReplicas()).map((s) => s.value);
      const all = [...REPLICA_A.requests, ...REPLICA_B.requests];
      expect(value('Requests')).toEqual([all.length]);
      expect(value('Prompt tokens')).toEqual([
        all.reduce((total, record) => total + (record.promptTokens ?? 0), 0),
      ]);
      expect(value('Outputs masked')).toEqual([4]);
      expect(value('Masking failures')).toEqual([2]);
      // Per store, failures per second over the panel's 1m interval.
      expect(shown(evaluate(query('Store failures'), twoReplicas()))).toEqual(
        shown([
          { labels: { store: 'conversations' }, value: 2 / 60 },
          { labels: { store: 'outputs' }, value: 2 / 60 },
          { labels: { store: 'usage' }, value: 1 / 60 },
        ]),
      );
    });

    it('the per-replica panel shows each replica by its name, or an unnamed one by its target', async () => {
      const dashboard = (await readDashboard('toolmask-grafana.json')) as { panels: Panel[] };
      const panel = dashboard.panels.find((candidate) => candidate.title === PER_REPLICA);
      const query = substituted(panel?.targets?.[0]?.expr ?? '');
      expect(shown(evaluate(query, twoReplicas()))).toEqual(
        shown([
          { labels: { replica: 'replica-a' }, value: REPLICA_A.requests.length / 60 },
          { labels: { replica: 'replica-b' }, value: REPLICA_B.requests.length / 60 },
        ]),
      );
      expect(shown(evaluate(query, oneGateway()))).toEqual(
        shown([{ labels: { replica: '10.0.0.10:8787' }, value: 6 / 60 }]),
      );
    });
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
