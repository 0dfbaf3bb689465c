/**
 * The client side of the gateway benches (sections 4 and 5): the growing conversations they send,
 * and a client that times each request, from the bench process, against any number of paths.
 *
 * The client allocates nothing per request (every body is a prefix of one buffer per
 * conversation), so its own garbage collection stays out of the times.
 */
import * as http from 'node:http';
import { percentile } from './childProcess.mjs';

export const MODEL_PATH = '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse';

/** Requests of each latency conversation sent before the timed ones (the first is a full pass). */
export const WARM_UP = 3;

/** Milliseconds between two `process.hrtime.bigint()` readings. */
export const msBetween = (from, to) => Number(to - from) / 1e6;

const CLOSE = Buffer.from(']}');

/**
 * A conversation that grows by one exchange per request, starting near `startBytes`, as a client
 * resends it. Every body is a prefix of one serialization (`{"contents":[a,b,...`) plus `]}`, so
 * the client holds one buffer per conversation and allocates nothing per request: the bench's own
 * garbage collection stays out of the times.
 */
export function growingConversation(contents, startBytes, count, tag) {
  const pieces = [Buffer.from('{"contents":[')];
  let length = pieces[0].length;
  const append = (content) => {
    const bytes = Buffer.from((pieces.length > 1 ? ',' : '') + JSON.stringify(content));
    pieces.push(bytes);
    length += bytes.length;
  };
  append({
    role: 'user',
    parts: [{ text: `conversation ${tag}: ${contents[0]?.parts?.[0]?.text ?? ''}` }],
  });
  let next = 1;
  let lastRole = 'user';
  const take = () => {
    const content = contents[next];
    next = next + 1 < contents.length ? next + 1 : 1;
    append(content);
    lastRole = content.role;
  };
  while (length < startBytes) take();
  const ends = [];
  for (let index = 0; index < count; index++) {
    // End on a user entry, as a request does.
    while (lastRole !== 'user') take();
    ends.push(length);
    take();
    take();
  }
  return { bytes: Buffer.concat(pieces, length), ends };
}

/** The gateway's `Server-Timing` header (`read;dur=0.61, mask;dur=1.20, ...`) as ms by phase. */
export function serverTimings(header) {
  const phases = {};
  for (const entry of (header ?? '').split(',')) {
    const match = /^\s*([\w-]+);dur=([\d.]+)/.exec(entry);
    if (match) phases[match[1]] = Number(match[2]);
  }
  return phases;
}

/** The timed requests' sizes: `{ count, firstMb, lastMb }` of every request after the warm-up. */
export function timedSizes(conversations) {
  const timed = conversations.flatMap((conversation) => conversation.ends.slice(WARM_UP));
  return {
    count: timed.length,
    firstMb: (Math.min(...timed) / 1_000_000).toFixed(2),
    lastMb: (Math.max(...timed) / 1_000_000).toFixed(2),
  };
}

/**
 * A client with its own kept-alive connections. `headers`: added to every request (a team
 * gateway's key).
 */
export function createGatewayClient({ headers = {} } = {}) {
  const newAgent = () => new http.Agent({ keepAlive: true, maxSockets: 100 });
  let agent = newAgent();

  /** Sends request `index` of `conversation`; times the answer's first byte and its end. */
  function send(url, conversation, index) {
    const end = conversation.ends[index];
    return new Promise((resolve, reject) => {
      const started = process.hrtime.bigint();
      const request = http.request(
        `${url}${MODEL_PATH}`,
        {
          method: 'POST',
          agent,
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': end + CLOSE.length,
          },
        },
        (response) => {
          let firstByte;
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk) => {
            firstByte ??= process.hrtime.bigint();
            text += chunk;
          });
          response.on('error', reject);
          response.on('end', () => {
            const ended = process.hrtime.bigint();
            const writtenAt = /"writtenAtNs":"(\d+)"/.exec(text)?.[1];
            if (response.statusCode !== 200 || !writtenAt) {
              reject(new Error(`${url}: status ${response.statusCode}: ${text.slice(0, 300)}`));
              return;
            }
            resolve({
              total: msBetween(started, ended),
              firstByte: msBetween(BigInt(writtenAt), firstByte),
              phases: serverTimings(response.headers['server-timing']),
            });
          });
        },
      );
      request.on('error', (error) =>
        reject(new Error(`${url}, request ${index}: ${error.message}`, { cause: error })),
      );
      request.write(conversation.bytes.subarray(0, end));
      request.end(CLOSE);
    });
  }

  /** Every request of `conversation` from `from` on, one after another. */
  async function sendEach(url, conversation, from = 0, to = conversation.ends.length) {
    for (let index = from; index < to; index++) await send(url, conversation, index);
  }

  return {
    send,
    sendEach,

    /**
     * Each conversation's requests go to every path in turn (`paths`: `[name, url]` pairs, in
     * that order, then the next request), so a slow stretch of the machine falls on all alike.
     * The first WARM_UP requests of a conversation are not timed: connections, JIT, and the
     * conversation's first full decode, which a session pays once, long before its requests reach
     * 1 MB. `pauseMs`: a pause after each request, so that what a server does after its answer
     * has ended (the file gateway writes its state then) never falls into the next path's
     * request, as a client's next request comes seconds later. Returns, by path name, the totals,
     * first bytes and Server-Timing phases in ms.
     */
    async latency(paths, conversations, { pauseMs = 0 } = {}) {
      const results = Object.fromEntries(
        paths.map(([name]) => [name, { totals: [], firstBytes: [], phases: {} }]),
      );
      for (const conversation of conversations) {
        for (let index = 0; index < conversation.ends.length; index++) {
          for (const [name, url] of paths) {
            const { total, firstByte, phases } = await send(url, conversation, index);
            if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
            if (index < WARM_UP) continue;
            results[name].totals.push(total);
            results[name].firstBytes.push(firstByte);
            for (const [phase, ms] of Object.entries(phases)) {
              (results[name].phases[phase] ??= []).push(ms);
            }
          }
        }
      }
      return results;
    },

    /** Requests per second with every conversation at once, each one request after another. */
    async throughput(url, conversations) {
      const started = process.hrtime.bigint();
      await Promise.all(conversations.map((conversation) => sendEach(url, conversation)));
      const requests = conversations.reduce(
        (sum, conversation) => sum + conversation.ends.length,
        0,
      );
      return requests / (msBetween(started, process.hrtime.bigint()) / 1000);
    },

    /**
     * Closes the kept-alive connections: the next requests open new ones. Before a path is used
     * again after a pause longer than a server keeps an idle connection (a gateway 5 s, HAProxy
     * 10 s), lest a request go out on a connection the server is closing.
     */
    reconnect() {
      agent.destroy();
      agent = newAgent();
    },

    close() {
      agent.destroy();
    },
  };
}

/** `values` at `share` minus `base` at `share` (ms). */
export const over = (values, base, share) => percentile(values, share) - percentile(base, share);

/** A number for a table: `digits` decimals, `–` when there is none. */
export const fmt = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
