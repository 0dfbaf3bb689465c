/**
 * How the attacks talk to a replica: `fetch` for ordinary requests, a raw socket for what fetch
 * will not send (two headers of one name, a header of a megabyte, a body that never ends), and
 * JSON-RPC over `/mcp` for the read-back tools.
 */
import * as net from 'node:net';

/** A request through fetch; its answer read whole, with how long it took. */
export async function call(url, { method = 'GET', headers = {}, body, timeoutMs = 30_000 } = {}) {
  const started = Date.now();
  try {
    const answer = await fetch(url, {
      method,
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await answer.text();
    return { status: answer.status, text, headers: answer.headers, ms: Date.now() - started };
  } catch (error) {
    return {
      status: 0,
      text: String(error?.cause ?? error),
      headers: new Headers(),
      ms: Date.now() - started,
    };
  }
}

/**
 * Bytes written on a socket as they are, the answer read until the server closes or `timeoutMs`
 * passes (`timedOut`). `status` is the first status line's code (0 for none).
 */
export function raw(port, bytes, { timeoutMs = 10_000, keepOpen = false } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let done = false;
    const finish = (timedOut) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, text, timedOut, ms: Date.now() - started });
    };
    const timer = setTimeout(() => finish(true), timeoutMs);
    socket.on('connect', () => {
      if (typeof bytes === 'function') bytes(socket);
      else socket.write(bytes);
    });
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      // One answer is enough unless the caller keeps reading.
      if (!keepOpen && /\r\n\r\n/.test(text) && answerComplete(text)) finish(false);
    });
    socket.on('close', () => finish(false));
    socket.on('error', () => finish(false));
  });
}

function answerComplete(text) {
  const [head, ...rest] = text.split('\r\n\r\n');
  const body = rest.join('\r\n\r\n');
  const length = /content-length:\s*(\d+)/i.exec(head);
  if (length) return Buffer.byteLength(body, 'latin1') >= Number(length[1]);
  if (/transfer-encoding:\s*chunked/i.test(head)) return body.endsWith('0\r\n\r\n');
  return false;
}

let rpcId = 0;

/** One JSON-RPC call on `/mcp`; `result` or `error` parsed, `status` the HTTP status. */
export async function mcp(url, headers, method, params, { body, timeoutMs = 30_000 } = {}) {
  const answer = await call(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: body ?? JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
    timeoutMs,
  });
  let parsed;
  try {
    parsed = JSON.parse(answer.text);
  } catch {
    parsed = undefined;
  }
  return { ...answer, rpc: parsed };
}

/**
 * `read_tool_output` (or another tool) over `/mcp` as `key`: `ok` when the tool answered without
 * an error, `text` what the model would read.
 */
export async function tool(url, key, name, args, options = {}) {
  const headers = key === undefined ? {} : { 'x-api-key': key };
  const answer = await mcp(
    url,
    { ...headers, ...(options.headers ?? {}) },
    'tools/call',
    {
      name,
      arguments: args,
    },
    options,
  );
  const result = answer.rpc?.result;
  const text =
    result?.content?.map((part) => part.text ?? '').join('\n') ??
    answer.rpc?.error?.message ??
    answer.text;
  return {
    status: answer.status,
    ok: answer.status === 200 && result !== undefined && !result.isError,
    text,
    ms: answer.ms,
  };
}

export const readOutput = (url, key, args, options) =>
  tool(url, key, 'read_tool_output', args, options);
