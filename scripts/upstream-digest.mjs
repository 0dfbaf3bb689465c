/**
 * The bytes a gateway sends upstream for recorded sessions, as one SHA-256 per session and one
 * over all: run it before and after a change to the gateway, and equal digests say the change
 * kept every byte. Each session goes through a fresh gateway (its own state folder and a fixed
 * clock) twice, as Gemini API requests and as OpenAI chat-completions requests, each request the
 * whole history so far, as a client resends it. Needs `npm run build`.
 *
 *   node scripts/upstream-digest.mjs [--all-fronts] [SESSION.json...]
 *
 * With no argument: the built-in example and, when `../shared/traces` is there, its first five
 * sessions of each folder. Prints one line per session and front, then the total.
 *
 * `--all-fronts` also sends each session as Anthropic Messages and as OpenAI Responses requests
 * (four fronts, so a different total); without it the output is the two fronts' as it always was.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGateway } from '@toolmask/gateway';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function defaultSessions() {
  const sessions = [path.join(root, 'packages/cli/examples/long-session.json')];
  const traces = path.resolve(root, '../shared/traces');
  if (!fs.existsSync(traces)) return sessions;
  for (const folder of fs.readdirSync(traces).sort()) {
    const dir = path.join(traces, folder);
    if (!fs.statSync(dir).isDirectory()) continue;
    const files = fs.readdirSync(dir).filter((name) => name.endsWith('.json'));
    sessions.push(
      ...files
        .sort()
        .slice(0, 5)
        .map((name) => path.join(dir, name)),
    );
  }
  return sessions;
}

function readContents(file) {
  const json = JSON.parse(fs.readFileSync(file, 'utf8'));
  return Array.isArray(json) ? json : json.contents;
}

/** Gemini contents as OpenAI chat messages (calls and results matched by id). */
function toMessages(contents) {
  const messages = [{ role: 'system', content: 'You are a coding agent.' }];
  let callNumber = 0;
  const pending = [];
  for (const content of contents) {
    const parts = content.parts ?? [];
    if (content.role === 'model') {
      const text = parts.map((part) => part.text ?? '').join('');
      const calls = parts
        .filter((part) => part.functionCall)
        .map((part) => {
          const id = `call_${++callNumber}`;
          pending.push(id);
          return {
            id,
            type: 'function',
            function: {
              name: part.functionCall.name,
              arguments: JSON.stringify(part.functionCall.args ?? {}),
            },
          };
        });
      messages.push({
        role: 'assistant',
        content: text || null,
        ...(calls.length ? { tool_calls: calls } : {}),
      });
      continue;
    }
    for (const part of parts) {
      if (part.functionResponse) {
        const response = part.functionResponse.response ?? {};
        const output =
          typeof response.output === 'string' ? response.output : JSON.stringify(response);
        messages.push({ role: 'tool', tool_call_id: pending.shift() ?? 'none', content: output });
      } else if (typeof part.text === 'string') {
        messages.push({ role: 'user', content: part.text });
      }
    }
  }
  return messages;
}

/** Gemini contents as Anthropic Messages messages (one message per content, calls by id). */
function toAnthropicMessages(contents) {
  const messages = [];
  let callNumber = 0;
  const pending = [];
  for (const content of contents) {
    const blocks = [];
    for (const part of content.parts ?? []) {
      if (part.functionCall) {
        const id = `toolu_${++callNumber}`;
        pending.push(id);
        blocks.push({
          type: 'tool_use',
          id,
          name: part.functionCall.name,
          input: part.functionCall.args ?? {},
        });
      } else if (part.functionResponse) {
        const response = part.functionResponse.response ?? {};
        const output =
          typeof response.output === 'string' ? response.output : JSON.stringify(response);
        blocks.push({
          type: 'tool_result',
          tool_use_id: pending.shift() ?? 'none',
          content: output,
        });
      } else if (typeof part.text === 'string' && part.text) {
        blocks.push({ type: 'text', text: part.text });
      }
    }
    if (blocks.length === 0) blocks.push({ type: 'text', text: '.' });
    messages.push({ role: content.role === 'model' ? 'assistant' : 'user', content: blocks });
  }
  return messages;
}

/** Gemini contents as OpenAI Responses input items (calls and outputs matched by call_id). */
function toResponsesInput(contents) {
  const items = [];
  let callNumber = 0;
  const pending = [];
  for (const content of contents) {
    const model = content.role === 'model';
    for (const part of content.parts ?? []) {
      if (part.functionCall) {
        const callId = `call_${++callNumber}`;
        pending.push(callId);
        items.push({
          type: 'function_call',
          call_id: callId,
          name: part.functionCall.name,
          arguments: JSON.stringify(part.functionCall.args ?? {}),
        });
      } else if (part.functionResponse) {
        const response = part.functionResponse.response ?? {};
        const output =
          typeof response.output === 'string' ? response.output : JSON.stringify(response);
        items.push({ type: 'function_call_output', call_id: pending.shift() ?? 'none', output });
      } else if (typeof part.text === 'string' && part.text) {
        items.push({
          type: 'message',
          role: model ? 'assistant' : 'user',
          content: [{ type: model ? 'output_text' : 'input_text', text: part.text }],
        });
      }
    }
  }
  return items;
}

/** An upstream that hashes every body it gets and answers with a short streamed text. */
async function digestingUpstream() {
  let hash = createHash('sha256');
  let requests = 0;
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      hash.update(`${request.method} ${request.url} ${body.length}\n`);
      hash.update(body);
      requests++;
      if (request.url.includes('/messages')) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const usage = { input_tokens: 1000, cache_read_input_tokens: 4000, output_tokens: 1 };
        response.end(
          `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage } })}\n\n` +
            `event: message_delta\ndata: ${JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } })}\n\n` +
            `event: message_stop\ndata: ${JSON.stringify({ type: 'message_stop' })}\n\n`,
        );
      } else if (request.url.includes('/responses')) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(
          `event: response.completed\ndata: ${JSON.stringify({ type: 'response.completed', response: { id: 'resp_1', object: 'response', status: 'completed', output: [], usage: { input_tokens: 5000, input_tokens_details: { cached_tokens: 4000 }, output_tokens: 1 } } })}\n\n`,
        );
      } else if (request.url.includes('chat/completions')) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(
          `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5000, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 4000 } } })}\n\ndata: [DONE]\n\n`,
        );
      } else {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(
          `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 5000, cachedContentTokenCount: 4000, candidatesTokenCount: 1 } })}\n\n`,
        );
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    take() {
      const digest = hash.digest('hex');
      const count = requests;
      hash = createHash('sha256');
      requests = 0;
      return { digest, count };
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

async function serve(gateway) {
  const server = http.createServer((request, response) => gateway.handle(request, response));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, server };
}

async function post(url, body) {
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'GeminiCLI/0.61.0 (linux; x64)' },
    body: JSON.stringify(body),
  });
  await answer.arrayBuffer();
  if (answer.status !== 200) throw new Error(`${url}: HTTP ${answer.status}`);
}

// A fixed folder: snippets name their files by path, so the path is part of the bytes.
const stateDir = path.join(os.tmpdir(), 'toolmask-upstream-digest');

/**
 * One run at a time on this machine: two runs would share the fixed folder and remove it under
 * each other. The lock holds the owner's pid; a lock whose owner is gone is taken over.
 */
function lockStateDir() {
  const lock = `${stateDir}.lock`;
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      process.on('exit', () => fs.rmSync(lock, { force: true }));
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const owner = Number(fs.readFileSync(lock, 'utf8'));
      let alive = false;
      try {
        process.kill(owner, 0);
        alive = true;
      } catch {
        // gone: take the lock over
      }
      if (alive) {
        console.error(
          `upstream-digest: another run (pid ${owner}) is using ${stateDir}; try again when it ends`,
        );
        process.exit(1);
      }
      fs.rmSync(lock, { force: true });
    }
  }
}

async function runSession(file, front, upstream) {
  fs.rmSync(stateDir, { recursive: true, force: true });
  fs.mkdirSync(stateDir, { mode: 0o700 });
  const settingsFile = path.join(stateDir, 'settings.json');
  fs.writeFileSync(
    settingsFile,
    JSON.stringify({
      experimental: {
        toolOutputMasking: { toolProtectionThreshold: 8000, minPrunableTokensThreshold: 4000 },
      },
    }),
  );
  let clock = Date.UTC(2026, 0, 1);
  const gateway = createGateway({
    stateDir,
    settingsFile,
    retentionDays: 0,
    upstreams: { gemini: upstream.url, openai: `${upstream.url}/v1`, anthropic: upstream.url },
    _internal: { now: () => (clock += 1000) },
  });
  const { url, server } = await serve(gateway);
  const contents = readContents(file);
  const messages = front === 'openai' ? toMessages(contents) : undefined;
  try {
    if (front === 'gemini') {
      for (let index = 1; index < contents.length; index++) {
        if (contents[index]?.role !== 'model') continue;
        await post(`${url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
          contents: contents.slice(0, index),
        });
      }
    } else if (front === 'anthropic' || front === 'responses') {
      // The history before each model turn, as the Gemini front sends it (ids by position, so
      // each request's prefix is the previous one's).
      for (let index = 1; index < contents.length; index++) {
        if (contents[index]?.role !== 'model') continue;
        const history = contents.slice(0, index);
        if (front === 'anthropic') {
          await post(`${url}/v1/messages`, {
            model: 'claude-m1',
            max_tokens: 1000,
            stream: true,
            system: 'You are a coding agent.',
            messages: toAnthropicMessages(history),
          });
        } else {
          await post(`${url}/openai/v1/responses`, {
            model: 'm1',
            stream: true,
            instructions: 'You are a coding agent.',
            input: toResponsesInput(history),
          });
        }
      }
    } else {
      for (let index = 2; index < messages.length; index++) {
        if (messages[index].role !== 'assistant') continue;
        await post(`${url}/openai/v1/chat/completions`, {
          model: 'm1',
          stream: true,
          messages: messages.slice(0, index),
        });
      }
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await gateway.close();
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
  return upstream.take();
}

const args = process.argv.slice(2);
const allFronts = args.includes('--all-fronts');
const fronts = allFronts ? ['gemini', 'openai', 'anthropic', 'responses'] : ['gemini', 'openai'];
const named = args.filter((arg) => arg !== '--all-fronts');
const files = named.length > 0 ? named : defaultSessions();
lockStateDir();
const upstream = await digestingUpstream();
const total = createHash('sha256');
try {
  for (const file of files) {
    for (const front of fronts) {
      const { digest, count } = await runSession(file, front, upstream);
      total.update(digest);
      console.log(
        `${digest.slice(0, 16)}  ${String(count).padStart(3)} requests  ${front.padEnd(allFronts ? 9 : 6)}  ${path.relative(root, file)}`,
      );
    }
  }
} finally {
  await upstream.close();
}
console.log(`total ${total.digest('hex')}`);
