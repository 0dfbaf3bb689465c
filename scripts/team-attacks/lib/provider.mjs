/**
 * The model provider the replicas forward to: it accepts only the keys it was given (in
 * `x-goog-api-key`, `x-api-key`, `Authorization: Bearer` or `?key=`; any other key, or none, gets
 * 401) and records every request it received: path, query, headers and (up to 8 MB) body. The
 * attacks read it to say what reached the provider, and with which key. Like Google's APIs, it
 * answers its discovery document (`PUBLIC_PATH`) to anyone, with any key or none.
 */
import * as http from 'node:http';

/** The path a provider answers without a key (Google's APIs: their discovery document). */
export const PUBLIC_PATH = '/$discovery/rest';

const KEEP_BODY_BYTES = 8 * 1024 * 1024;

function keyOf(request, query) {
  const bearer = String(request.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
  return (
    request.headers['x-goog-api-key'] ??
    request.headers['x-api-key'] ??
    (bearer || undefined) ??
    new URLSearchParams(query).get('key') ??
    undefined
  );
}

function answerFor(path) {
  if (path.includes('chat/completions')) {
    return {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      model: 'gpt-5',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
    };
  }
  if (path.endsWith('/messages')) {
    return {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4',
      content: [{ type: 'text', text: 'ok' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 10, output_tokens: 1 },
    };
  }
  return {
    candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 1, totalTokenCount: 11 },
  };
}

export async function startProvider(validKeys) {
  const requests = [];
  const server = http.createServer((request, response) => {
    const chunks = [];
    let size = 0;
    request.on('data', (chunk) => {
      size += chunk.length;
      if (size <= KEEP_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      const [path = '/', query = ''] = (request.url ?? '/').split('?');
      const key = keyOf(request, query);
      requests.push({
        path,
        query,
        headers: request.headers,
        rawHeaders: request.rawHeaders,
        raw: Buffer.concat(chunks),
        size,
        key,
      });
      if (path.endsWith(PUBLIC_PATH)) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ kind: 'discovery#restDescription', version: 'v1beta' }));
        return;
      }
      if (!validKeys.has(String(key))) {
        response.writeHead(401, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { code: 401, message: 'API key not valid' } }));
        return;
      }
      const body = answerFor(path);
      if (path.includes('streamGenerateContent')) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(`data: ${JSON.stringify(body)}\r\n\r\n`);
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    /** Requests received from `since` (an index of `requests`) on. */
    since: (start) => requests.slice(start),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
