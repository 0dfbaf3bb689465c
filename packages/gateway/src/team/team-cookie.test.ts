/**
 * A team gateway's dashboard cookie means what docs/team.md says (issue 33, findings 3 and 4): it
 * names the key that earned it and when it ends, and holds only while that key still names its
 * owner; it opens no `/mcp` or model route; a name used again is someone new.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { DEFAULT_COOKIE_LIFETIME_MS } from './team-cookie.js';
import { TeamKeys } from './team-keys.js';

const ALICE_1 = 'tmk_alice-first';
const ALICE_2 = 'tmk_alice-second';
const ADMIN = 'the-admin-key';

/** Virtual keys by raw key; `revoke` and `create` change them as `toolmask keys` would. */
function virtualKeys() {
  const names = new Map<string, string>([[ALICE_1, 'alice']]);
  const sha = (key: string) => createHash('sha256').update(key).digest('hex');
  return {
    names,
    lookup: async (raw: string) => (names.has(raw) ? { name: names.get(raw)! } : undefined),
    lookupDigest: async (digest: string) => {
      for (const [raw, name] of names) if (sha(raw) === digest) return { name };
      return undefined;
    },
  };
}

function setUp(options: { adminKey?: string; secret?: string } = {}) {
  let clock = 1_760_000_000_000;
  const keys = virtualKeys();
  const teamKeys = new TeamKeys({
    keys,
    adminKey: options.adminKey ?? ADMIN,
    cookieSecret: async () => options.secret ?? 'secret-from-the-environment',
    now: () => clock,
  });
  return { keys, teamKeys, advance: (ms: number) => (clock += ms) };
}

function withCookie(value: string, headers: Record<string, string> = {}): IncomingMessage {
  return { headers: { cookie: `toolmask_team=${value}`, ...headers }, url: '/' } as IncomingMessage;
}

async function cookieOf(teamKeys: TeamKeys, key: string): Promise<string> {
  const principal = await teamKeys.principalOfKey(key);
  expect(principal).toBeDefined();
  return (await teamKeys.cookieFor(principal!, key)).value;
}

const BROWSER = ['header', 'bearer', 'cookie'] as const;
const TOOL = ['header', 'bearer'] as const;

describe('the team dashboard cookie', () => {
  it('names the key and its end, never the key; it ends after its lifetime', async () => {
    const { teamKeys, advance } = setUp();
    const principal = (await teamKeys.principalOfKey(ALICE_1))!;
    const issued = await teamKeys.cookieFor(principal, ALICE_1);
    expect(issued.value).not.toContain(ALICE_1);
    expect(issued.maxAgeSeconds).toBe(DEFAULT_COOKIE_LIFETIME_MS / 1000);
    expect(await teamKeys.principal(withCookie(issued.value), BROWSER)).toEqual(principal);
    advance(DEFAULT_COOKIE_LIFETIME_MS + 1);
    expect(await teamKeys.principal(withCookie(issued.value), BROWSER)).toBeUndefined();
  });

  it('ends when its virtual key is revoked (within the lookup cache of a minute)', async () => {
    const { keys, teamKeys, advance } = setUp();
    const cookie = await cookieOf(teamKeys, ALICE_1);
    keys.names.delete(ALICE_1);
    advance(61_000);
    expect(await teamKeys.principal(withCookie(cookie), BROWSER)).toBeUndefined();
  });

  it("a name used again is someone new: the new key neither shares the owner nor the old cookie's", async () => {
    const { keys, teamKeys, advance } = setUp();
    const old = await teamKeys.principalOfKey(ALICE_1);
    const cookie = await cookieOf(teamKeys, ALICE_1);
    keys.names.delete(ALICE_1);
    keys.names.set(ALICE_2, 'alice');
    advance(61_000);
    const renewed = await teamKeys.principalOfKey(ALICE_2);
    expect(renewed).toBeDefined();
    expect(renewed).not.toEqual(old);
    expect(await teamKeys.principal(withCookie(cookie), BROWSER)).toBeUndefined();
  });

  it('an admin cookie ends when the admin key is rotated, and the new key earns another', async () => {
    const before = setUp({ adminKey: 'admin-key-1' });
    const cookie = await cookieOf(before.teamKeys, 'admin-key-1');
    expect(await before.teamKeys.principal(withCookie(cookie), BROWSER)).toEqual({ kind: 'admin' });
    const after = setUp({ adminKey: 'admin-key-2' });
    expect(await after.teamKeys.principal(withCookie(cookie), BROWSER)).toBeUndefined();
    expect(await cookieOf(after.teamKeys, 'admin-key-2')).not.toBe(cookie);
  });

  it('is never taken where a route takes no cookie (/mcp, model routes)', async () => {
    const { teamKeys } = setUp();
    const cookie = await cookieOf(teamKeys, ALICE_1);
    expect(await teamKeys.principal(withCookie(cookie), TOOL)).toBeUndefined();
  });

  it('is signed with the secret of the environment: another secret (a copy of the store) forges none', async () => {
    const { teamKeys } = setUp({ secret: 'the-team-secret' });
    const cookie = await cookieOf(teamKeys, ADMIN);
    const elsewhere = setUp({ secret: 'a-guess' });
    expect(await elsewhere.teamKeys.principal(withCookie(cookie), BROWSER)).toBeUndefined();
    const forged = await cookieOf(elsewhere.teamKeys, ADMIN);
    expect(await teamKeys.principal(withCookie(forged), BROWSER)).toBeUndefined();
  });
});
