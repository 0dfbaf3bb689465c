/**
 * The Grafana dashboard's queries in a real Prometheus (Debian's `prometheus`), scraping two
 * replicas of a team gateway as a team would (each replica's `/metrics`, `honor_labels` unset, so
 * the replicas' `instance` label becomes `exported_instance`): every query of the dashboard is
 * valid PromQL there, the requests panel sums over both replicas, and the per-replica panel names
 * each replica once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { freePort, inCi } from '@toolmask/test-support/loopback-servers';
import {
  gatewayFixture,
  runGeminiClient,
  settled,
  shellOutput,
  startTestGateway,
} from '../test-utils/gemini-client.js';
import { providerKeyOwner } from '../team/team-keys.js';
import { memoryTeamStores } from '../test-utils/memory-team-stores.js';
import { scriptedShellUpstream } from '../test-utils/scripted-upstream.js';
import type { RunningGateway } from '../listen-gateway.js';

const PROMETHEUS = '/usr/bin/prometheus';
const DASHBOARD = fileURLToPath(
  new URL('../../../../docs/dashboards/toolmask-grafana.json', import.meta.url),
);
const available = existsSync(PROMETHEUS) || inCi();
if (!available) {
  console.warn(
    `[toolmask] Grafana queries in Prometheus skipped: ${PROMETHEUS} is absent (apt-get install -y prometheus; .ci/run installs it)`,
  );
}

const cleanups = cleanUpAfterEach();

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

interface QueryResult {
  status: string;
  error?: string;
  data?: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
}

/** The dashboard's expressions, its variables given values a person would pick. */
function dashboardQueries(text: string): string[] {
  const dashboard = JSON.parse(text) as {
    panels: Array<{ targets?: Array<{ expr?: string }> }>;
  };
  return dashboard.panels
    .flatMap((panel) => panel.targets ?? [])
    .map((target) => target.expr ?? '')
    .filter((expr) => expr !== '')
    .map((expr) =>
      expr
        .replaceAll('$__rate_interval', '1m')
        .replaceAll('$__range', '5m')
        .replaceAll('$model', '.*'),
    );
}

describe.skipIf(!available)('the Grafana dashboard in a real Prometheus, two replicas', () => {
  it('every query is valid PromQL, the totals sum over replicas, each replica is named once', async () => {
    const fixture = await gatewayFixture({
      toolProtectionThreshold: 8_000,
      minPrunableTokensThreshold: 8_000,
    });
    cleanups.push(fixture.cleanup);
    const upstream = await scriptedShellUpstream(4);
    cleanups.push(() => upstream.close());
    const stores = memoryTeamStores();
    const replicas: RunningGateway[] = [];
    for (const name of ['replica-a', 'replica-b']) {
      const running = await startTestGateway({
        stateDir: path.join(fixture.root, name),
        settingsFile: fixture.settingsFile,
        upstreams: { gemini: upstream.url },
        stores: { conversations: stores.conversations, usage: stores.usage },
        team: {
          outputs: stores.outputs,
          cookieSecret: async () => 'secret',
          instance: name,
          // A team's /metrics is the admin's: Prometheus scrapes with the admin key.
          adminKey: 'the-admin-key',
          proofs: stores.proofs,
        },
      });
      cleanups.push(() => running.close());
      replicas.push(running);
    }
    // Five requests through each replica, one session each, by keys the provider accepted before
    // (a team keeps nothing for a key until then: team/owner-ledger.ts).
    for (const index of replicas.keys())
      await stores.proofs.prove(providerKeyOwner(`key-${index}`));
    for (const [index, running] of replicas.entries()) {
      await runGeminiClient({
        url: `${running.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
        prompt: `build ${index}`,
        outputFor: (call) => ({ output: shellOutput(call.id) }),
        maxRequests: 10,
        headers: { 'x-goog-api-key': `key-${index}` },
      });
      await settled(running);
    }

    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-prometheus-'));
    cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
    const targets = replicas.map((running) => new URL(running.url).host);
    await fs.writeFile(
      path.join(dir, 'prometheus.yml'),
      [
        'global:',
        '  scrape_interval: 1s',
        'scrape_configs:',
        '  - job_name: toolmask',
        '    authorization:',
        '      credentials: the-admin-key',
        '    static_configs:',
        `      - targets: [${targets.map((target) => `'${target}'`).join(', ')}]`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    const prometheus: ChildProcess = spawn(
      PROMETHEUS,
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
    cleanups.push(async () => {
      if (prometheus.exitCode !== null) return;
      const exited = new Promise((resolve) => prometheus.once('exit', resolve));
      prometheus.kill('SIGKILL');
      await exited;
    });
    const base = `http://127.0.0.1:${port}`;
    const query = async (expr: string): Promise<QueryResult> =>
      (await (
        await fetch(`${base}/api/v1/query?query=${encodeURIComponent(expr)}`)
      ).json()) as QueryResult;
    // Both replicas scraped at least twice (rate() needs two samples).
    await waitFor('two scrapes of both replicas', async () => {
      const scrapes = await query('count_over_time(up{job="toolmask"}[1m])');
      const counts = scrapes.data?.result.map((series) => Number(series.value[1])) ?? [];
      return counts.length === 2 && counts.every((count) => count >= 2) ? true : undefined;
    });

    for (const expr of dashboardQueries(await fs.readFile(DASHBOARD, 'utf8'))) {
      const result = await query(expr);
      expect(result.status, `${expr}: ${result.error ?? ''}`).toBe('success');
    }

    const requests = await query(
      'sum without (instance, exported_instance) (toolmask_gateway_requests_total)',
    );
    const total = (requests.data?.result ?? []).reduce(
      (sum, series) => sum + Number(series.value[1]),
      0,
    );
    expect(total).toBe(10);
    const perReplica = await query(
      'sum by (replica) (label_replace(label_replace(toolmask_gateway_requests_total, "replica", "$1", "instance", "(.*)"), "replica", "$1", "exported_instance", "(.+)"))',
    );
    const named = Object.fromEntries(
      (perReplica.data?.result ?? []).map((series) => [
        series.metric['replica'],
        Number(series.value[1]),
      ]),
    );
    expect(named).toEqual({ 'replica-a': 5, 'replica-b': 5 });
  }, 90_000);
});
