/**
 * The floor under the gateway's added latency, for section 4: the least a Node.js process can do
 * and still stand where the gateway stands. It reads each request body whole (as the gateway must
 * before its pass), forwards it with the same undici `request` the gateway uses, and streams the
 * answer back. No masking, no state, no telemetry.
 *
 *   node bench/bareProxy.mjs UPSTREAM_URL   (prints `listening on URL`; ends on SIGTERM)
 */
import * as http from 'node:http';
import { serveOnLoopback } from './serveOnLoopback.mjs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The gateway's own undici, not whichever version the workspace root happens to hold.
const { request } = createRequire(path.join(root, 'packages/gateway/package.json'))('undici');
const upstream = process.argv[2];

const server = http.createServer(async (incoming, response) => {
  try {
    const chunks = [];
    for await (const chunk of incoming) chunks.push(chunk);
    const answer = await request(`${upstream}${incoming.url}`, {
      method: incoming.method,
      headers: { 'content-type': incoming.headers['content-type'] ?? 'application/json' },
      body: Buffer.concat(chunks),
    });
    response.writeHead(answer.statusCode, { 'content-type': answer.headers['content-type'] });
    response.flushHeaders();
    for await (const chunk of answer.body) response.write(chunk);
    response.end();
  } catch (error) {
    response.destroy(error);
  }
});
serveOnLoopback(server);
