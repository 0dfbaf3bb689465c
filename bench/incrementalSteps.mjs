/**
 * The CPU of the steps an incremental request pays besides its pass (issue 30, section 6d), each
 * alone, in this process (`process.cpuUsage`, user + system: the thread pool's and the kernel's
 * work count): the usage record's facts of a ~1.2 MB gemini body (a request that names nothing,
 * and a conversation's first), the masking settings' lookup, the state's atomic write and the usage
 * append, the body reader's SHA-256 over the array, the UTF-8 check of the whole body and of its
 * end after the last element (what the reader checks since 6d's fifth pass, when the rest is the
 * previous body's), and the OpenTelemetry request counters.
 *
 *   node bench/incrementalSteps.mjs [--root DIR] [--rounds N]
 *
 * `--root`: another checkout (built) whose modules are measured; a build whose `requestFacts`
 * takes no options reads every body as a first request. Prints one line per round.
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argument = (name, fallback) => {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : fallback;
};
const root = path.resolve(argument('--root', here));
const rounds = Number(argument('--rounds', '5'));
const load = (file) => import(pathToFileURL(path.join(root, 'packages', file)).href);
const { requestFacts } = await load('gateway/dist/usage/request-facts.js');
const { PROTOCOLS } = await load('gateway/dist/protocols/protocols.js');
const { createMaskingSettingsSource } = await load('gateway/dist/pipeline/masking-settings.js');
const { createGatewayTelemetry } = await load('gateway/dist/usage/gateway-telemetry.js');
const { writeAtomically, appendLines } = await load('core/dist/storage/privateFiles.js');
const { growingConversation } = await import(
  pathToFileURL(path.join(here, 'bench/gatewayClient.mjs')).href
);

/** µs of CPU per call of `step`, over `count` calls one after the other. */
async function cpuPerCall(count, step) {
  const before = process.cpuUsage();
  for (let index = 0; index < count; index++) await step(index);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

const example = JSON.parse(
  fs.readFileSync(path.join(here, 'packages/cli/examples/long-session.json'), 'utf8'),
);
const conversation = growingConversation(example, 1_200_000, 1, 'steps');
const outsideTail = Buffer.from('],"systemInstruction":{"parts":[{"text":"You are a helper."}]}}');
const body = Buffer.concat([conversation.bytes.subarray(0, conversation.ends[0]), outsideTail]);
const outside = Buffer.concat([Buffer.from('{"contents":['), outsideTail]);
const array = body.subarray(body.indexOf('['), body.length - outsideTail.length + 1);
const arrayCopy = Buffer.from(array);
// The body from its last element on: what a request that adds one element brings.
const newEnd = body.subarray(body.lastIndexOf('{"role"'));

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-incremental-steps-'));
const settingsFile = path.join(scratch, 'settings.json');
fs.writeFileSync(settingsFile, '{"experimental":{"toolOutputMasking":{"enabled":true}}}');
const ownFile = path.join(scratch, 'toolmask.json');
fs.writeFileSync(ownFile, '{"enabled":true}');
const ignore = () => undefined;
const given = createMaskingSettingsSource({ settingsFile }, ignore, ignore);
const own = createMaskingSettingsSource(
  { clientSettingsFiles: { 'claude-code': ownFile } },
  ignore,
  ignore,
);
const telemetry = createGatewayTelemetry({ serviceVersion: 'bench' });
const record = {
  client: 'claude-code',
  front: 'anthropic',
  model: 'claude-sonnet-4',
  status: 200,
  promptTokens: 100_000,
  cachedTokens: 90_000,
  cacheWriteTokens: 5_000,
  outputTokens: 1_000,
  tokensKeptOut: 20_000,
  gatewayMs: 3,
};
const meta = `${JSON.stringify({ startedAt: 1, lastEndedAt: 2, client: 'claude-code', model: 'm', net: { x: 'y'.repeat(400) } })}\n`;
const protocol = PROTOCOLS['gemini-api'];
const f = (us) => (us >= 100 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(0)} µs`);
try {
  console.log(`${root}: a ${body.length}-byte body`);
  for (let round = 0; round < rounds; round++) {
    const figures = {
      'facts, names nothing': await cpuPerCall(50, () =>
        requestFacts(protocol, body, { named: false, outside }),
      ),
      'facts, first request': await cpuPerCall(50, () =>
        requestFacts(protocol, body, { named: true, outside }),
      ),
      'settings --settings': await cpuPerCall(500, () => given.config(undefined, 'claude-code')),
      'settings own file': await cpuPerCall(500, () => own.config(undefined, 'claude-code')),
      'meta.json atomic write': await cpuPerCall(300, () =>
        writeAtomically(path.join(scratch, 'state', 'meta.json'), meta, { root: scratch }),
      ),
      'usage append': await cpuPerCall(300, () =>
        appendLines(path.join(scratch, 'state', 'usage.jsonl'), meta, { root: scratch }),
      ),
      // The gateway's per-request state since 6d's fourth pass (a build without the option uses
      // the thread pool: the same figures as the two rows above).
      'atomic write, calls inline': await cpuPerCall(300, () =>
        writeAtomically(path.join(scratch, 'state', 'meta2.json'), meta, {
          root: scratch,
          calls: 'inline',
        }),
      ),
      'append, calls inline': await cpuPerCall(300, () =>
        appendLines(path.join(scratch, 'state', 'meta.jsonl'), meta, {
          root: scratch,
          calls: 'inline',
        }),
      ),
      'sha-256 of the array': await cpuPerCall(30, () =>
        createHash('sha256').update(array).digest(),
      ),
      'Buffer.equals of the array': await cpuPerCall(30, () => array.equals(arrayCopy)),
      'isUtf8 of the body': await cpuPerCall(30, () => isUtf8(body)),
      [`isUtf8 of the last element on (${newEnd.length} bytes)`]: await cpuPerCall(300, () =>
        isUtf8(newEnd),
      ),
      'otel recordRequest': await cpuPerCall(20_000, (index) =>
        telemetry.recordRequest({ ...record, status: 200 + (index % 2) }),
      ),
    };
    console.log(
      Object.entries(figures)
        .map(([name, us]) => `${name} ${f(us)}`)
        .join(' | '),
    );
  }
} finally {
  await telemetry.shutdown();
  fs.rmSync(scratch, { recursive: true, force: true });
}
