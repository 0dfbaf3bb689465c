#!/usr/bin/env node
/**
 * `npm run bench`: the sections of docs/benchmarks.md from one run, the first three side by side
 * with gemini-cli's own implementation measured in the same process run.
 *   1. speed and memory of the pass          bench/passSpeed.mjs, bench/giantOutputs.mjs (one 200 MB output)
 *   2. token estimates against Gemma 3       bench/tokenAccuracy.mjs (installs the tokenizer here on first use)
 *      the gateway's calibration against OpenAI's o200k_base
 *                                            bench/calibrationAccuracy.mjs (issue 34; installs js-tiktoken
 *                                            in bench/openai-tokenizer/ on first use)
 *   3. billed tokens under prompt caching    bench/cachingCost.mjs (with the offline optimum, and
 *                                            per provider's pricing: bench/providerPricing.mjs),
 *      effective billed (read-backs counted) bench/readBacks.mjs,
 *      information kept                      bench/informationKept.mjs (per kind of output:
 *                                            bench/outputKinds.mjs),
 *      the policy frontier                   bench/policyFrontier.mjs,
 *      each session alone, against none      bench/sessionsAlone.mjs (issue 34)
 *   4. the gateway: added latency, throughput, memory (against a direct connection)
 *                                            bench/gatewayBench.mjs
 *      and gemini-cli's own masking with and without it (the real gemini binary)
 *                                            bench/clientMaskingBench.mjs
 *      twelve concurrent 49 MiB bodies: memory and /healthz (bench/concurrentBodies.mjs)
 *   5. the team gateway (state in Redis, replicas behind HAProxy) against section 4's single
 *      gateway, in the same run: latency, throughput, Redis memory, an unseen conversation
 *                                            bench/teamBench.mjs (needs redis-server, haproxy)
 *      and a replica under strangers' load (10,000 requests of made-up keys, 4 MB model names):
 *      RSS, /metrics, Redis growth             bench/teamLoad.mjs (needs redis-server)
 *   6. weight: install size and time of the packed CLI in an empty prefix against main@b8a254e's
 *      set, start-up CPU of --version, gateway --help and a launcher against node -e 0
 *                                            bench/weight.mjs (needs npm and the network);
 *      the cold pass of unseen conversations  bench/coldPass.mjs
 * Options: --only 1,2,3,4,5,6   --traces DIR (default ../shared/traces)   --quick (fewer sizes and ablations)
 *          --temp-dir DIR (where section 1 writes output files; default the OS temp dir)
 *          --weight-base COMMIT (section 6: the set installed for comparison; default b8a254e)
 *          --superseded REASONS (section 3: which reasons make an output superseded in every toolmask
 *            replay, e.g. `rerun,read-again`, or `none`; default core's, all three)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runPassSpeedBench } from './passSpeed.mjs';
import { runGiantOutputsBench } from './giantOutputs.mjs';
import { runTokenAccuracyBench, formatResult } from './tokenAccuracy.mjs';
import { runCalibrationAccuracyBench, formatCalibrationResult } from './calibrationAccuracy.mjs';
import { runCachingCostBench } from './cachingCost.mjs';
import { runGatewayBench } from './gatewayBench.mjs';
import { runClientMaskingBench } from './clientMaskingBench.mjs';
import { runConcurrentBodiesBench } from './concurrentBodies.mjs';
import { runTeamBench } from './teamBench.mjs';
import { runTeamLoadBench } from './teamLoad.mjs';
import { runInformationKeptBench } from './informationKept.mjs';
import { runPolicyFrontierBench } from './policyFrontier.mjs';
import { loadFolders, setSupersededReasons } from './replayStudy.mjs';
import { runSessionsAloneBench } from './sessionsAlone.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argument = (name) => {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
};
const tracesDir = path.resolve(argument('traces') ?? path.join(root, '..', 'shared', 'traces'));
const only = new Set((argument('only') ?? '1,2,3,4,5,6').split(',').map((value) => value.trim()));
const quick = process.argv.includes('--quick');
const superseded = argument('superseded');
if (superseded !== undefined) {
  setSupersededReasons(superseded === 'none' ? [] : superseded.split(',').map((v) => v.trim()));
}
const haveTraces = fs.existsSync(tracesDir);

console.log(
  `toolmask bench — ${new Date().toISOString()}, Node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, load ${os
    .loadavg()
    .map((v) => v.toFixed(1))
    .join(' ')}`,
);
if (!haveTraces)
  console.log(
    `(${tracesDir} is absent: sections 2 and 3 need it and are skipped; section 1 runs on synthetic sessions only)`,
  );

let failed = false;
if (only.has('1')) {
  console.log(
    '\n## 1. Speed of the pass (total, p50, p99; p99 of passes that mask and of passes that do not; peak RSS over baseline)',
  );
  runPassSpeedBench({
    tracesDir: haveTraces ? tracesDir : undefined,
    sizes: quick ? [100, 1_600] : [100, 1_000, 1_600, 5_000],
    tempDir: argument('temp-dir'),
  });
  runGiantOutputsBench({ megabytes: quick ? 50 : 200, tempDir: argument('temp-dir') });
}
if (only.has('2') && haveTraces) {
  console.log('\n## 2. Token estimates against the Gemma 3 tokenizer');
  const result = await runTokenAccuracyBench({
    tracesDir,
    log: (message) => process.stderr.write(`${message}\n`),
  });
  console.log(formatResult(result));
  if (!Object.values(result.pass).every(Boolean)) failed = true;
  console.log("\nThe gateway's per-conversation calibration against OpenAI's o200k_base tokenizer");
  const calibration = await runCalibrationAccuracyBench({
    tracesDir,
    log: (message) => process.stderr.write(`${message}\n`),
  });
  console.log(formatCalibrationResult(calibration));
  if (!calibration.pass) failed = true;
}
if (only.has('3') && haveTraces) {
  console.log(
    '\n## 3. Cost under prompt caching (replay of the shared traces, 8 sessions chained)',
  );
  const cli = await import('@toolmask/cli');
  const core = await import('@toolmask/core');
  const folders = await loadFolders(cli, tracesDir);
  const costResults = await runCachingCostBench({ tracesDir, folders, quick });
  const information = await runInformationKeptBench({ cli, core, folders, costResults });
  await runPolicyFrontierBench({
    cli,
    core,
    folders,
    quick,
    quotesOf: information.quotesOf,
    earlyReference: information.early,
  });
  await runSessionsAloneBench({ cli, core, tracesDir });
}
if (only.has('4')) {
  console.log(
    '\n## 4. The gateway (added latency, throughput and memory against a direct connection)',
  );
  await runGatewayBench({ quick });
  await runClientMaskingBench();
  console.log('\n### Twelve concurrent 49 MiB bodies (issue 21)');
  const bodies = await runConcurrentBodiesBench({ megabytes: quick ? 16 : 49 });
  const met = (ok) => (ok ? 'met' : 'NOT met');
  console.log(
    `Goals: peak RSS under about 400 MB: ${met(bodies.peakMb < 400)}; /healthz within 100 ms ` +
      `throughout: ${met(bodies.healthz.max <= 100)} (the idle server beside it: max ${bodies.floor.max.toFixed(1)} ms)`,
  );
}
if (only.has('5')) {
  console.log(
    '\n## 5. The team gateway (state in Redis, replicas behind HAProxy) against the single gateway',
  );
  await runTeamBench({ quick });
  await runTeamLoadBench({ quick });
}
if (only.has('6')) {
  console.log('\n## 6. Weight: install, start-up, the cold pass');
  const { runWeightBench } = await import('./weight.mjs');
  await runWeightBench({
    baseCommit: argument('weight-base') ?? 'b8a254e',
    runs: quick ? 10 : 20,
    log: (message) => process.stderr.write(`${message}\n`),
  });
  // 6c, 6d: the cold pass of unseen real conversations against parsing the same body, and the
  // incremental mask phase against the bare proxy.
  const { runColdPassBench } = await import('./coldPass.mjs');
  await runColdPassBench({ tracesDir: haveTraces ? tracesDir : undefined, quick });
}
process.exitCode = failed ? 1 : 0;
