/**
 * Core's part of the cold pass alone (issue 30, section 6c): no gateway, no HTTP, no body reader,
 * so two builds can be told apart at a few percent on a busy machine. Each of bench/coldPass.mjs's
 * 10 chains is masked once, whole, by a fresh `ToolOutputMaskingService` (default settings) in
 * this process, its files written under `--dir` (default a fixed folder in /dev/shm, so that the
 * file system's cost of creating files stays out and the snippets name the same paths in every
 * build); the CPU of each pass is read with `process.cpuUsage`. Prints one line: outputs masked,
 * a digest of the masked histories (the same in two builds that mask alike), the CPU p50 per
 * chain, their sum and the first chain's.
 *
 *   node bench/coldPassCore.mjs [--root DIR] [--traces DIR] [--dir DIR]
 *   node bench/coldPassCore.mjs --previews [--min-chars N] [--root DIR]
 *   node bench/coldPassCore.mjs --superseded [--root DIR]
 *   node bench/coldPassCore.mjs --planning [--root DIR]
 *
 * `--root`: another checkout (built), e.g. a scratch worktree of main. `--previews`: instead, the
 * preview of every function response of the chains (of `--min-chars` characters or more: the
 * outputs a pass masks are the long ones), as a pass builds it (the call found, the saved text),
 * the CPU of them all and a digest of the previews. `--superseded`: instead, the superseded outputs
 * of each chain found by a fresh tracker (the facts of every call), their CPU and a digest of them.
 * `--planning`: instead, each chain's plan by a fresh planner without the superseded step (the
 * ledger's token estimates of every part and the choice), the CPU p50 per chain, the sum, the
 * first chain's and a digest of the plans.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { traceChains } from './coldPass.mjs';

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argument = (name, fallback) => {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : fallback;
};
const root = path.resolve(argument('--root', here));
const tracesDir = path.resolve(argument('--traces', path.join(here, '..', 'shared', 'traces')));
const load = (file) => import(pathToFileURL(path.join(root, 'packages/core/dist', file)).href);
const cpuMs = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};
const chains = traceChains(tracesDir).map(
  (chain) => JSON.parse(`${chain.bytes.toString('utf8')}]}`).contents,
);

/** The previews of the chains' function responses of `minChars` characters or more. */
async function previews(minChars) {
  const { buildPreview } = await load('services/toolOutputPreview.js');
  const { findToolCall } = await load('services/previews/index.js');
  const { fullOutputText } = await load('services/maskingPass/savedText.js');
  const digest = createHash('sha256');
  let count = 0;
  const started = cpuMs();
  for (const contents of chains) {
    for (const [index, content] of contents.entries()) {
      for (const part of content.parts ?? []) {
        const { functionResponse } = part;
        if (!functionResponse) continue;
        const text = fullOutputText(functionResponse.response, functionResponse.name);
        if (text.length < minChars) continue;
        const call = findToolCall(contents, index, functionResponse);
        digest.update(
          buildPreview(functionResponse.name, functionResponse.response, text, undefined, {
            ...(call ? { call } : {}),
            family: 'by-kind',
          }),
        );
        count++;
      }
    }
  }
  const cpu = cpuMs() - started;
  console.log(
    `previews ${count} digest ${digest.digest('hex').slice(0, 12)} cpu ${cpu.toFixed(1)} ms`,
  );
}

/** The superseded outputs of each chain, by a fresh tracker. */
async function superseded() {
  const { SupersededOutputs } = await load('services/superseded/supersededOutputs.js');
  const digest = createHash('sha256');
  let count = 0;
  const started = cpuMs();
  for (const contents of chains) {
    const tracker = new SupersededOutputs();
    tracker.update(contents);
    for (const entry of tracker.entries) {
      const parts = [...(tracker.partsOf(entry) ?? new Map())];
      count += parts.length;
      digest.update(JSON.stringify([entry, parts]));
    }
  }
  const cpu = cpuMs() - started;
  console.log(
    `superseded ${count} digest ${digest.digest('hex').slice(0, 12)} cpu ${cpu.toFixed(1)} ms`,
  );
}

/** Each chain planned once by a fresh planner: the ledger and the choice, no superseded step. */
async function planning() {
  const { PassPlanning } = await load('services/maskingPass/passPlanning.js');
  const { ResponseRecords } = await load('services/maskingPass/responseRecords.js');
  const { estimateFunctionResponseTokens } = await load('utils/tokenCalculation.js');
  const { eventLoopPauser } = await load('utils/eventLoop.js');
  const { DEFAULT_CACHE_ECONOMICS } = await load('services/cacheEconomics.js');
  const core = await load('index.js');
  const config = core.resolveToolOutputMaskingConfig();
  const digest = createHash('sha256');
  const cpus = [];
  for (const contents of chains) {
    const planner = new PassPlanning(
      new ResponseRecords(estimateFunctionResponseTokens),
      [],
      () => undefined,
    );
    const history = contents.map((content) => ({ ...content }));
    const request = { cacheLikelyCold: false, cache: DEFAULT_CACHE_ECONOMICS };
    const started = cpuMs();
    const plan = await planner.plan(history, config, request, [], eventLoopPauser());
    cpus.push(cpuMs() - started);
    digest.update(JSON.stringify(plan));
  }
  const sorted = [...cpus].sort((a, b) => a - b);
  const p50 = sorted[Math.floor((sorted.length - 1) / 2)];
  console.log(
    `planning digest ${digest.digest('hex').slice(0, 12)} cpu p50 ${p50.toFixed(1)} ms, sum ${cpus
      .reduce((sum, cpu) => sum + cpu, 0)
      .toFixed(0)} ms, first ${cpus[0].toFixed(1)} ms`,
  );
}

/** Each chain masked once by a fresh service. */
async function passes(directory) {
  const core = await load('index.js');
  // The service's debug lines are not part of the pass.
  for (const method of ['log', 'debug', 'info', 'warn']) console[method] = () => undefined;
  fs.rmSync(directory, { recursive: true, force: true });
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  const config = core.resolveToolOutputMaskingConfig();
  const digest = createHash('sha256');
  const cpus = [];
  let masked = 0;
  try {
    for (const [index, contents] of chains.entries()) {
      const host = {
        getSessionId: () => `chain-${index}`,
        storage: { getProjectTempDir: () => directory },
        getExperiments: () => undefined,
        getContentGeneratorConfig: () => undefined,
        isInteractive: () => false,
        getUsageStatisticsEnabled: () => false,
        getToolOutputMaskingConfig: async () => config,
      };
      const service = new core.ToolOutputMaskingService({ telemetry: () => undefined });
      const started = cpuMs();
      const result = await service.mask(
        contents.map((content) => ({ ...content })),
        host,
      );
      cpus.push(cpuMs() - started);
      masked += result.maskedCount;
      digest.update(JSON.stringify(result.newHistory));
    }
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
  const sorted = [...cpus].sort((a, b) => a - b);
  const p50 = sorted[Math.floor((sorted.length - 1) / 2)];
  process.stdout.write(
    `masked ${masked} digest ${digest.digest('hex').slice(0, 12)} cpu p50 ${p50.toFixed(1)} ms, sum ${cpus
      .reduce((sum, cpu) => sum + cpu, 0)
      .toFixed(0)} ms, first ${cpus[0].toFixed(1)} ms\n`,
  );
}

if (process.argv.includes('--previews')) await previews(Number(argument('--min-chars', '0')));
else if (process.argv.includes('--superseded')) await superseded();
else if (process.argv.includes('--planning')) await planning();
else await passes(path.resolve(argument('--dir', '/dev/shm/toolmask-cold-pass-core')));
