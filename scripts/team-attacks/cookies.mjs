/**
 * The dashboard cookie (findings 3 and 4): what it says about itself, where it opens, whether it
 * can be forged (a tampered payload, a secret planted in Redis as an older version kept it), and
 * whether it ends with its key (revoked, rotated, a name made again).
 */
import { createHmac } from 'node:crypto';
import { call, readOutput } from './lib/http.mjs';
import { providerSince, sendAs, sessionIds } from './lib/probes.mjs';
import { sleep } from './lib/verdict.mjs';
import { ADMIN_KEY, GEMINI_PATH, keys, startReplica } from './lib/world.mjs';
import { shellHistory } from './lib/histories.mjs';

const COOKIE = 'toolmask_team';

/** `/?token=<key>` on `url`: the Set-Cookie line and the `name=value` pair to send back. */
async function login(url, key, headers = {}) {
  const answer = await call(`${url}/?token=${encodeURIComponent(key)}`, { headers });
  const line = answer.headers.get('set-cookie') ?? '';
  return { status: answer.status, line, pair: line.split(';')[0] };
}

const api = (url, path, cookie) => call(`${url}${path}`, { headers: cookie ? { cookie } : {} });

function sign(secret, payload) {
  return createHmac('sha256', secret)
    .update(`toolmask team cookie v2\u0000${payload}`)
    .digest('base64url');
}

function forge(claims, secret) {
  const payload = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
  return `${COOKIE}=${payload}.${sign(secret, payload)}`;
}

const cookieScope = {
  title: 'the dashboard cookie: its attributes, and the routes it opens',
  property:
    'the dashboard cookie is not the key, is HttpOnly, SameSite=Strict, ends within 12 h, is Secure behind TLS, and opens /api only: never /mcp or a model route',
  async run(world, evidence) {
    const alice = world.keys.alice;
    const plain = await login(world.r1.url, alice);
    const tls = await login(world.r1.url, alice, { 'x-forwarded-proto': 'https' });
    const maxAge = Number(/Max-Age=(\d+)/i.exec(plain.line)?.[1] ?? Infinity);
    evidence.check(
      plain.line.startsWith(`${COOKIE}=`),
      `/?token= answers ${plain.status} with ${plain.line.replace(/=[^;]+/, '=…')}`,
    );
    evidence.check(!plain.line.includes(alice), 'the cookie does not hold the key');
    evidence.check(
      /HttpOnly/i.test(plain.line) && /SameSite=Strict/i.test(plain.line),
      'HttpOnly; SameSite=Strict',
    );
    evidence.check(maxAge <= 43_200, `Max-Age ${maxAge} s (bound 43,200)`);
    evidence.check(
      !/;\s*Secure/i.test(plain.line) && /;\s*Secure/i.test(tls.line),
      'Secure behind TLS (X-Forwarded-Proto: https), not over plain HTTP',
    );
    const sessions = await api(world.r2.url, '/api/sessions', plain.pair);
    evidence.check(
      sessions.status === 200,
      `the cookie from r1 opens /api/sessions on r2: ${sessions.status}`,
    );
    const mcp = await readOutput(
      world.r2.url,
      undefined,
      { file: world.aliceFiles[0] },
      { headers: { cookie: plain.pair } },
    );
    evidence.check(
      !mcp.ok && mcp.status === 401,
      `the cookie on /mcp: ${mcp.status} ${mcp.ok ? 'read' : 'refused'}`,
    );
    const mark = world.provider.requests.length;
    const model = await call(`${world.r2.url}${GEMINI_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: plain.pair },
      body: shellHistory('cookie', 1, 5),
    });
    evidence.check(
      model.status === 401 && providerSince(world, mark).length === 0,
      `the cookie on a model route: ${model.status}, forwarded ${providerSince(world, mark).length}`,
    );
  },
};

const forgedCookies = {
  title: 'forged cookies: tampered claims, a secret planted in Redis, empty secrets, two cookies',
  property:
    "a copy of (or write to) Redis lets no one in, and no tampered cookie opens anything: /api/summary (the admin only) and others' sessions stay closed",
  async run(world, evidence) {
    const url = world.haproxy.url;
    const alice = await login(world.r1.url, world.keys.alice);
    const [payload, signature] = alice.pair.slice(COOKIE.length + 1).split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const later = Date.now() + 3_600_000;
    const admin = { subject: 'admin', keyId: claims.keyId, expiresAt: later };
    const asAdmin = Buffer.from(JSON.stringify(admin)).toString('base64url');
    // An older version kept the secret in Redis: a store copy (or a write to it) must not sign.
    await world.redisClient.set('toolmask:team:cookie-secret', 'planted-secret');
    const forged = [
      ["Alice's signature on admin claims", `${COOKIE}=${asAdmin}.${signature}`],
      ['signed with a secret planted in Redis', forge(admin, 'planted-secret')],
      ['signed with an empty secret', forge(admin, '')],
      ['signed with "undefined"', forge(admin, 'undefined')],
      [
        "Alice's claims, expiry moved, her signature",
        `${COOKIE}=${Buffer.from(JSON.stringify({ ...claims, expiresAt: later + 1 })).toString('base64url')}.${signature}`,
      ],
      ['three parts', `${alice.pair}.x`],
      ['the admin key as the cookie', `${COOKIE}=${ADMIN_KEY}`],
      ["a forged admin cookie before Alice's", `${forge(admin, 'planted-secret')}; ${alice.pair}`],
      [
        "Alice's cookie then a forged admin one",
        `${alice.pair}; ${forge(admin, 'planted-secret')}`,
      ],
    ];
    try {
      for (const [what, cookie] of forged) {
        const summary = await api(url, '/api/summary', cookie);
        const status = await api(url, '/api/status', cookie);
        evidence.check(
          summary.status !== 200 && !/stateDir|settingsPath|upstream/i.test(status.text),
          `${what}: /api/summary ${summary.status}, /api/status ${status.status} shows no admin fields`,
        );
      }
    } finally {
      await world.redisClient.del('toolmask:team:cookie-secret');
    }
    const real = await login(world.r1.url, ADMIN_KEY);
    const summary = await api(url, '/api/summary', real.pair);
    evidence.check(
      summary.status === 200,
      `the real admin cookie opens /api/summary: ${summary.status}`,
    );
  },
};

const revokedAndRotated = {
  title: 'cookies after a key is revoked, its name reused, the admin key rotated',
  property:
    "a cookie ends with its key: a revoked key's cookie and the old admin key's cookie open nothing on a replica that checks them, a name made again reads nothing of the old owner, and a replica that remembered the key refuses within its minute",
  async run(world, evidence, { quick }) {
    const carol = world.keys.carol;
    const sent = await sendAs(world, world.r1, carol, shellHistory('carol', 4, 2_000, 'CAROLTEXT'));
    evidence.check(sent.status === 200, `Carol's session: ${sent.status}`);
    const [carolSession] = await sessionIds(world.r1.url, carol);
    const cookie = (await login(world.r1.url, carol)).pair;
    const adminCookie = (await login(world.r1.url, ADMIN_KEY)).pair;
    const aliceCookie = (await login(world.r1.url, world.keys.alice)).pair;
    evidence.check(
      (await api(world.r1.url, '/api/sessions', cookie)).status === 200,
      "Carol's cookie opens /api/sessions before",
    );
    await keys(world.store, 'revoke', 'carol');
    const carol2 = (await keys(world.store, 'create', 'carol')).stdout;
    world.keys.carolAgain = carol2;
    // A replica with the admin key rotated, signing with the same secret as before (so only the
    // key checks can refuse the old cookies).
    const secret = createHmac('sha256', ADMIN_KEY)
      .update('toolmask team cookie secret v1')
      .digest('hex');
    const r3 = await startReplica(world, 'r3', {
      adminKey: 'rotated-admin-key-5c1d',
      env: { TEAM_COOKIE_SECRET: secret },
      extraArgs: ['--cookie-secret-env', 'TEAM_COOKIE_SECRET'],
    });
    try {
      const revoked = await api(r3.url, '/api/sessions', cookie);
      evidence.check(
        revoked.status === 401 || revoked.status === 403,
        `the revoked key's cookie on a replica that checks it: ${revoked.status}`,
      );
      const oldAdmin = await api(r3.url, '/api/summary', adminCookie);
      evidence.check(
        oldAdmin.status === 401 || oldAdmin.status === 403,
        `the old admin key's cookie after rotation: ${oldAdmin.status}`,
      );
      const stillAlice = await api(r3.url, '/api/sessions', aliceCookie);
      evidence.check(
        stillAlice.status === 200,
        `Alice's cookie on it (same secret): ${stillAlice.status}`,
      );
      const revokedModel = await sendAs(world, r3, carol, shellHistory('carol2', 1, 5));
      evidence.check(
        revokedModel.status === 403,
        `the revoked key on a model route: ${revokedModel.status}`,
      );
    } finally {
      await r3.stop();
    }
    const newCarol = await call(`${world.haproxy.url}/api/sessions`, {
      headers: { 'x-toolmask-token': carol2 },
    });
    evidence.check(
      newCarol.status === 200 &&
        !newCarol.text.includes(carolSession ?? 'none') &&
        !newCarol.text.includes('CAROLTEXT'),
      `a new key named carol sees none of the old Carol's sessions (${newCarol.status})`,
    );
    if (quick) {
      evidence.note('quick: the wait for r1 to forget the revoked key (up to a minute) is skipped');
      return;
    }
    const started = Date.now();
    let status = 200;
    while (Date.now() - started < 75_000) {
      status = (await api(world.r1.url, '/api/sessions', cookie)).status;
      if (status !== 200) break;
      await sleep(2_000);
    }
    const seconds = (Date.now() - started) / 1000;
    evidence.check(
      status !== 200 && seconds <= 65,
      `r1, which remembered Carol's key, refuses her cookie ${seconds.toFixed(0)} s after the revocation (${status}; bound 65 s)`,
    );
  },
};

export default [cookieScope, forgedCookies, revokedAndRotated];
