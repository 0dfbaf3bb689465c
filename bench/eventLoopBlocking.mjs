/**
 * How long one legal but hostile request keeps the gateway's event loop from answering anything
 * else (issue 21, hole 5). A `toolmask gateway` runs in a child process, as a person runs it, in
 * front of the loopback fake upstream (bench/fakeGeminiUpstream.mjs); while each body below goes
 * through it, the bench polls `GET /healthz` one request at a time, 10 ms apart, and reports the
 * slowest answer (a blocked loop answers nothing until it is free again) and the longest gap
 * between two answers.
 *
 *   - nested-wide: a tool output of ~40 MB of small nested arrays (`[[0,1],[2,3]]`, millions);
 *   - nested-deep: a tool output of ~40 MB of arrays 40 levels deep, side by side;
 *   - nested-args: the same deep arrays in a model entry's `functionCall.args` (not an output);
 *   - nested-split: ~40 MB of small nested arrays spread over 224 tool outputs of about 90,000
 *     values each, just light enough to be parsed at once (20 million values in all);
 *   - giant-text: one ~40 MB text output (a log), the usual kind of giant;
 *   - calls-gemini: 150,000 small tool calls, each a model entry and its response's user entry;
 *   - calls-openai: one assistant message with 150,000 `tool_calls` and their 150,000 `tool`
 *     messages (one tool run: the gateway groups it as one turn for the pass);
 *   - each `calls-*` body again with one more exchange, as the client's next request (what is
 *     new is decoded; the rest is checked against what was read before).
 *
 *   node bench/eventLoopBlocking.mjs [--only nested-wide,calls-gemini] [--mb 40] [--calls 150000]
 *
 * Needs `npm run build`. BENCH_GATEWAY_NODE_ARGS passes flags to the gateway's node (for example
 * `--cpu-prof --cpu-prof-dir=/tmp/prof`: the profile is written when the gateway ends), and
 * BENCH_GATEWAY_LOG names a file for what it prints (`--trace-gc` lines, say). BENCH_SLOW_POLLS=MS
 * prints when each poll slower than MS started and ended, in the clock of a CPU profile.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { startFakeUpstream, startGatewayProcess } from './childProcess.mjs';

const GEMINI_PATH = '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse';
const OPENAI_PATH = '/openai/v1/chat/completions';

function argument(name) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** Text of a JSON array of about `bytes` bytes, each element `unit` (already JSON). */
function repeatedArray(unit, bytes) {
  const count = Math.max(1, Math.floor(bytes / (unit.length + 1)));
  return `[${new Array(count).fill(unit).join(',')}]`;
}

const WIDE_UNIT = '[[0,1],[2,3]]';
const DEEP_UNIT = `${'['.repeat(40)}7${']'.repeat(40)}`;

/** A short Gemini conversation with `value` (JSON text) in one place, then a prompt. */
function nestedGeminiBody(value, where) {
  const call = { name: 'read_file', id: 'call-1', args: { path: 'data.json' } };
  const callText =
    where === 'args'
      ? `{"name":"read_file","id":"call-1","args":{"data":${value}}}`
      : JSON.stringify(call);
  const responseText =
    where === 'output'
      ? `{"name":"read_file","id":"call-1","response":{"output":${value}}}`
      : '{"name":"read_file","id":"call-1","response":{"output":"ok"}}';
  return (
    '{"contents":[' +
    '{"role":"user","parts":[{"text":"look at data.json"}]},' +
    `{"role":"model","parts":[{"functionCall":${callText}}]},` +
    `{"role":"user","parts":[{"functionResponse":${responseText}}]},` +
    '{"role":"model","parts":[{"text":"done"}]},' +
    '{"role":"user","parts":[{"text":"and now?"}]}' +
    ']}'
  );
}

/** A small tool output, different for each call. */
const smallOutput = (index) => `listing ${index}: src/a${index}.ts src/b${index}.ts`;

/** Tool outputs of `value` (JSON text) each, `count` of them, then a prompt. */
function manyOutputsBody(value, count) {
  const entries = ['{"role":"user","parts":[{"text":"read them all"}]}'];
  for (let index = 0; index < count; index++) {
    const id = `call-${index}`;
    entries.push(
      `{"role":"model","parts":[{"functionCall":{"name":"read_file","id":"${id}","args":{"path":"d${index}.json"}}}]}`,
      `{"role":"user","parts":[{"functionResponse":{"name":"read_file","id":"${id}","response":{"output":${value}}}}]}`,
    );
  }
  entries.push(
    '{"role":"model","parts":[{"text":"done"}]}',
    '{"role":"user","parts":[{"text":"and now?"}]}',
  );
  return `{"contents":[${entries.join(',')}]}`;
}

/** A log of about `bytes` bytes: numbered lines. */
function logText(bytes) {
  const lines = [];
  let length = 0;
  for (let index = 0; length < bytes; index++) {
    const line = `${index} INFO worker ${index % 7} processed batch ${index * 31} in ${index % 97} ms`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n');
}

/** 150k calls in Gemini's shape: a model entry per call and a user entry per response. */
function callsGeminiEntries(calls) {
  const entries = ['{"role":"user","parts":[{"text":"list everything"}]}'];
  for (let index = 0; index < calls; index++) {
    const id = `c${index}`;
    entries.push(
      `{"role":"model","parts":[{"functionCall":{"name":"list_directory","id":"${id}","args":{"path":"d${index}"}}}]}`,
      `{"role":"user","parts":[{"functionResponse":{"name":"list_directory","id":"${id}","response":{"output":"${smallOutput(index)}"}}}]}`,
    );
  }
  return entries;
}

/** 150k calls in the OpenAI shape: one assistant message with every call, then a tool message each. */
function callsOpenAiMessages(calls) {
  const toolCalls = [];
  const results = [];
  for (let index = 0; index < calls; index++) {
    const id = `call_${index}`;
    toolCalls.push(
      `{"id":"${id}","type":"function","function":{"name":"list_directory","arguments":"{\\"path\\":\\"d${index}\\"}"}}`,
    );
    results.push(`{"role":"tool","tool_call_id":"${id}","content":"${smallOutput(index)}"}`);
  }
  return [
    '{"role":"system","content":"You are a coding agent."}',
    '{"role":"user","content":"list everything"}',
    `{"role":"assistant","content":"","tool_calls":[${toolCalls.join(',')}]}`,
    ...results,
  ];
}

const geminiBody = (entries) => `{"contents":[${entries.join(',')}]}`;
const openAiBody = (messages) =>
  `{"model":"qwen3-coder-plus","stream":true,"messages":[${messages.join(',')}]}`;

/** The cases, built lazily (each body is tens of MB). */
function cases(megabytes, calls) {
  const bytes = megabytes * 1_000_000;
  const next = {
    gemini: [
      '{"role":"model","parts":[{"text":"listed"}]}',
      '{"role":"user","parts":[{"text":"and now?"}]}',
    ],
    openai: ['{"role":"assistant","content":"listed"}', '{"role":"user","content":"and now?"}'],
  };
  return [
    {
      name: 'nested-wide',
      path: GEMINI_PATH,
      bodies: () => [nestedGeminiBody(repeatedArray(WIDE_UNIT, bytes), 'output')],
    },
    {
      name: 'nested-deep',
      path: GEMINI_PATH,
      bodies: () => [nestedGeminiBody(repeatedArray(DEEP_UNIT, bytes), 'output')],
    },
    {
      name: 'nested-args',
      path: GEMINI_PATH,
      bodies: () => [nestedGeminiBody(repeatedArray(DEEP_UNIT, bytes), 'args')],
    },
    {
      name: 'nested-split',
      path: GEMINI_PATH,
      // About 90,000 values an output (the reader parses up to 100,000 at once).
      bodies: () => [
        manyOutputsBody(repeatedArray(WIDE_UNIT, 180_000), Math.ceil(bytes / 180_000)),
      ],
    },
    {
      name: 'giant-text',
      path: GEMINI_PATH,
      bodies: () => [nestedGeminiBody(JSON.stringify(logText(bytes)), 'output')],
    },
    {
      name: 'calls-gemini',
      path: GEMINI_PATH,
      bodies: () => {
        const entries = callsGeminiEntries(calls);
        return [geminiBody(entries), geminiBody([...entries, ...next.gemini])];
      },
    },
    {
      name: 'calls-openai',
      path: OPENAI_PATH,
      bodies: () => {
        const messages = callsOpenAiMessages(calls);
        return [openAiBody(messages), openAiBody([...messages, ...next.openai])];
      },
    },
  ];
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

/** POSTs `body`; resolves with its status and time once the answer has ended. */
function post(url, body) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode,
            ms: performance.now() - started,
            text: text.slice(0, 200),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * Polls `GET url/healthz` one request at a time, 10 ms apart, until `stop()`: the slowest answer
 * and the longest time between two answers.
 */
function pollHealth(url) {
  const pollAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let stopped = false;
  let slowest = 0;
  let longestGap = 0;
  let polls = 0;
  let failed = 0;
  let lastAnswer = performance.now();
  const once = () =>
    new Promise((resolve) => {
      const started = performance.now();
      // A failed poll (none is expected) counts as an answer at the time it failed.
      const startedNs = process.hrtime.bigint();
      const answered = (ok) => {
        const now = performance.now();
        if (process.env.BENCH_SLOW_POLLS && now - started > Number(process.env.BENCH_SLOW_POLLS)) {
          // Monotonic microseconds, the clock of a CPU profile's samples: find what ran then.
          console.error(`slow poll ${startedNs / 1000n} ${process.hrtime.bigint() / 1000n}`);
        }
        slowest = Math.max(slowest, now - started);
        longestGap = Math.max(longestGap, now - lastAnswer);
        lastAnswer = now;
        if (ok) polls++;
        else failed++;
        resolve();
      };
      http
        .get(`${url}/healthz`, { agent: pollAgent }, (response) => {
          response.resume();
          response.on('end', () => answered(response.statusCode === 200));
        })
        .on('error', () => answered(false));
    });
  const loop = (async () => {
    while (!stopped) {
      await once();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    pollAgent.destroy();
    return { slowest, longestGap, polls, failed };
  };
}

const fmt = (value) => (Number.isFinite(value) ? value.toFixed(0) : '–');

async function main() {
  const megabytes = Number(argument('mb') ?? 40);
  const calls = Number(argument('calls') ?? 150_000);
  const only = argument('only')?.split(',');
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-event-loop-'));
  const upstream = await startFakeUpstream();
  const gateway = await startGatewayProcess(
    [
      '--state-dir',
      path.join(scratch, 'state'),
      '--upstream',
      upstream.url,
      '--openai-upstream',
      `${upstream.url}/v1`,
    ],
    process.env.BENCH_GATEWAY_LOG,
  );
  console.log(
    `| body | MB | request | status | ms | slowest /healthz ms | longest gap ms | polls (failed) |`,
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  try {
    for (const testCase of cases(megabytes, calls)) {
      if (only && !only.includes(testCase.name)) continue;
      const bodies = testCase.bodies();
      for (const [index, body] of bodies.entries()) {
        // Let the loop settle (garbage of the previous case) before timing.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const stop = pollHealth(gateway.url);
        await new Promise((resolve) => setTimeout(resolve, 50));
        const answer = await post(`${gateway.url}${testCase.path}`, body).catch((error) => ({
          status: error.code ?? String(error),
          ms: NaN,
          text: gateway.stderr().slice(-500),
        }));
        await new Promise((resolve) => setTimeout(resolve, 50));
        const health = await stop();
        console.log(
          `| ${testCase.name} | ${(Buffer.byteLength(body) / 1e6).toFixed(1)} | ${index === 0 ? 'first' : 'next'} | ${answer.status} | ${fmt(answer.ms)} | ${fmt(health.slowest)} | ${fmt(health.longestGap)} | ${health.polls}${health.failed ? ` (${health.failed})` : ''} |`,
        );
        if (answer.status !== 200) console.log(`  answer: ${answer.text}`);
      }
    }
  } finally {
    agent.destroy();
    await gateway.close();
    await upstream.close();
    const log = gateway.stderr().trim();
    if (log)
      console.log(`\ngateway stderr:\n${process.env.BENCH_FULL_STDERR ? log : log.slice(0, 2000)}`);
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
