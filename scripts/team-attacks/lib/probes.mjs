/**
 * Checks that several attacks share: a replica still answers its own user quickly, `/metrics` as
 * the admin sees it, and what the provider received since a mark.
 */
import { call } from './http.mjs';
import { ADMIN_KEY, GEMINI_PATH, filesIn, rssMb } from './world.mjs';
import { bigOutputHistory, shellHistory } from './histories.mjs';

let turn = 0;

/**
 * One small model request of `key` (Alice's by default) to `replica`: its status and time. The
 * property "a stranger holds no one else up" reads it.
 */
export async function served(world, replica, key = world.keys.alice, timeoutMs = 10_000) {
  turn += 1;
  return call(`${replica.url}${GEMINI_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
    body: shellHistory(`probe-${turn}`, 1, 10),
    timeoutMs,
  });
}

/** Whether `replica` is the process it started as, and still answers `/healthz`. */
export async function standing(replica) {
  if (!replica.alive()) return { ok: false, says: `${replica.name} exited (${replica.exit})` };
  const health = await call(`${replica.url}/healthz`, { timeoutMs: 5_000 });
  return {
    ok: health.status === 200,
    says: `${replica.name} pid ${replica.pid} alive, /healthz ${health.status} in ${health.ms} ms, RSS ${rssMb(replica.pid)?.toFixed(0)} MB`,
  };
}

/** Checks that `replica` stands and serves Alice within `ms`. */
export async function checkStillServes(world, replica, evidence, ms = 3_000) {
  const stand = await standing(replica);
  evidence.check(stand.ok, stand.says);
  const alice = await served(world, replica);
  evidence.check(
    alice.status === 200 && alice.ms < ms,
    `Alice served afterwards: ${alice.status} in ${alice.ms} ms (bound ${ms} ms)`,
  );
}

/** `/metrics` of `replica` as `key` (the admin's by default; `null` for none). */
export async function metricsText(replica, key = ADMIN_KEY) {
  return call(`${replica.url}/metrics`, {
    headers: key === null ? {} : { authorization: `Bearer ${key}` },
  });
}

/** The provider's requests received after `mark` (a length of `world.provider.requests`). */
export function providerSince(world, mark) {
  return world.provider.requests.slice(mark);
}

/** Where a secret appears in what the provider received since `mark`: headers, query or body. */
export function providerSaw(world, mark, secret) {
  return providerSince(world, mark).filter(
    (request) =>
      request.rawHeaders.some((value) => value.includes(secret)) ||
      request.query.includes(secret) ||
      request.raw.includes(secret),
  );
}

/** Sends `body` as `key` to the Gemini route of `replica`; the provider's copy of it. */
export async function sendAs(world, replica, key, body, headers = {}) {
  const mark = world.provider.requests.length;
  const answer = await call(`${replica.url}${GEMINI_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': key, ...headers },
    body,
    timeoutMs: 120_000,
  });
  const upstream = world.provider.requests.slice(mark).at(-1);
  return { status: answer.status, text: answer.text, upstream };
}

/**
 * Bob's own session (outputs tagged BOBTEXT), made once: its masked outputs' paths. Sent twice, as
 * a client resends its history.
 */
export async function bobSession(world) {
  if (world.bobFiles) return world.bobFiles;
  const body = shellHistory('bob', 10, 2_000, 'BOBTEXT');
  let upstream;
  for (let turn = 0; turn < 2; turn++) {
    ({ upstream } = await sendAs(world, world.r2, world.keys.bob, body));
  }
  world.bobFiles = filesIn(upstream?.raw.toString('utf8') ?? '');
  return world.bobFiles;
}

/**
 * Bob's session with one output of `megabytes` MB; the masked big output's path. A save that fails
 * (Redis busy on a loaded machine) leaves the output whole, so the turn is sent again, up to 6
 * times, as a client resends its history.
 */
export async function bobBigOutput(world, megabytes) {
  world.bobBig ??= {};
  if (world.bobBig[megabytes]) return world.bobBig[megabytes];
  const body = bigOutputHistory(`BOBBIG${megabytes}`, megabytes);
  for (let turn = 1; turn <= 6; turn++) {
    const { upstream } = await sendAs(world, world.r1, world.keys.bob, body);
    const big = filesIn(upstream?.raw.toString('utf8') ?? '').find((file) =>
      file.includes('-big.'),
    );
    if (big && turn >= 2) {
      world.bobBig[megabytes] = big;
      return big;
    }
    if (turn >= 2) await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  throw new Error(
    `Bob's ${megabytes} MB output was not masked in 6 turns (its save failed each time)`,
  );
}

/** The ids of the sessions `/api/sessions` shows to `key`. */
export async function sessionIds(url, key) {
  const answer = await call(`${url}/api/sessions`, { headers: { 'x-toolmask-token': key } });
  return [...new Set([...answer.text.matchAll(/"id":"([^"]+)"/g)].map((match) => match[1]))];
}
