/**
 * What sending a rewritten body costs undici's client (6d's fifth pass): the body joined into one
 * buffer first (`Buffer.concat`, as the reader did) against its pieces as an iterable under the
 * declared length (pieced-body.ts), to a loopback server in the same process that reads it whole.
 * CPU per request (`process.cpuUsage`, user + system, the server's share included: the same in
 * both), 100 requests after 20 unmeasured, three rounds.
 *
 *   node bench/piecedBodySend.mjs [--bytes N] [--pieces N]
 */
import * as http from 'node:http';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { request } = createRequire(path.join(root, 'packages/gateway/package.json'))('undici');
const argument = (name, fallback) => {
  const index = process.argv.indexOf(name);
  return Number(index >= 0 ? process.argv[index + 1] : fallback);
};
const bytes = argument('--bytes', 1_200_000);
const count = argument('--pieces', 6);

const server = http.createServer((incoming, response) => {
  let length = 0;
  incoming.on('data', (chunk) => (length += chunk.length));
  incoming.on('end', () =>
    response.end(incoming.headers['transfer-encoding'] ? 'chunked' : String(length)),
  );
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/`;
const source = Buffer.alloc(bytes, 'x');
const size = Math.floor(bytes / count);
const pieces = Array.from({ length: count }, (_, index) =>
  source.subarray(index * size, index === count - 1 ? bytes : (index + 1) * size),
);

async function send(mode) {
  const answer = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': String(bytes) },
    body: mode === 'joined' ? Buffer.concat(pieces) : pieces,
  });
  const text = await answer.body.text();
  if (text !== String(bytes)) throw new Error(`the server read ${text}`);
}

console.log(`a ${bytes}-byte body in ${count} pieces`);
for (let round = 1; round <= 3; round++) {
  const figures = [];
  for (const mode of ['joined', 'pieces']) {
    for (let index = 0; index < 20; index++) await send(mode);
    const before = process.cpuUsage();
    for (let index = 0; index < 100; index++) await send(mode);
    const used = process.cpuUsage(before);
    figures.push(`${mode} ${((used.user + used.system) / 100 / 1000).toFixed(2)} ms`);
  }
  console.log(`round ${round}: ${figures.join(' | ')}`);
}
server.close();
