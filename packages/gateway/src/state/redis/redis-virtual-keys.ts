/**
 * A team gateway's virtual keys: the keys people put in their client instead of a provider key.
 * A key is `tmk_` and 32 random bytes (base64url); it is shown once, when made, and never stored:
 * Redis holds only its SHA-256, so a copy of the store lets no one in. Key names after the
 * client's prefix:
 *
 *   {vkeys}:key:<sha256 hex>   a string, `{ name, createdAt }` as JSON (what a lookup reads)
 *   {vkeys}:names              a hash, name → sha256 hex (names are unique; list and revoke)
 *
 * The `{vkeys}` hash tag keeps both in one slot, so create and revoke stay single scripts on a
 * Redis Cluster. Keys never expire.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ToolmaskError } from '@toolmask/core/errors';

/** `BAD_NAME`: not a key name; `DUPLICATE_NAME`: a key has that name already. */
export class VirtualKeyError extends ToolmaskError<'BAD_NAME' | 'DUPLICATE_NAME'> {}

export interface VirtualKeyInfo {
  name: string;
  /** Epoch ms. */
  createdAt: number;
}

export interface VirtualKeys {
  /** Makes a key named `name` and returns it: the only time it is ever shown. */
  create(name: string): Promise<string>;
  /** Every key's name and creation time (never the keys), by name. */
  list(): Promise<VirtualKeyInfo[]>;
  /** Removes the key named `name`; false when there is none. */
  revoke(name: string): Promise<boolean>;
  /** The name of the key `rawKey`; undefined for an unknown or revoked key. */
  lookup(rawKey: string): Promise<{ name: string } | undefined>;
  /** The same, by the key's SHA-256 in hex (what a dashboard cookie holds). */
  lookupDigest(sha256: string): Promise<{ name: string } | undefined>;
}

const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const RAW_KEY = /^tmk_[A-Za-z0-9_-]{43}$/;
const NAMES = '{vkeys}:names';
const keyOfSha = (sha: string) => `{vkeys}:key:${sha}`;

/** KEYS: names, key of the sha. ARGV: name, sha, record JSON. 0 when the name is taken. */
const CREATE = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[3])
return 1
`;

/** KEYS: names, key of the sha. ARGV: name, sha. 0 when the name no longer has that key. */
const REVOKE = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
return 1
`;

interface VirtualKeyScripts {
  toolmaskCreateVirtualKey(...keysAndArgs: string[]): Promise<number>;
  toolmaskRevokeVirtualKey(...keysAndArgs: string[]): Promise<number>;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function checkName(name: string): string {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new VirtualKeyError(
      'BAD_NAME',
      `not a key name: ${JSON.stringify(name)} (1 to 64 of a-z 0-9 . _ -, starting with a letter or digit)`,
    );
  }
  return name;
}

function infoOf(text: string | null | undefined): VirtualKeyInfo | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as Partial<VirtualKeyInfo> | null;
    if (value && typeof value.name === 'string' && typeof value.createdAt === 'number') {
      return { name: value.name, createdAt: value.createdAt };
    }
  } catch {
    // not ours: no key
  }
  return undefined;
}

export interface VirtualKeysOptions {
  /** The clock, for tests. @default Date.now */
  now?: () => number;
}

export function createVirtualKeys(client: Redis, options: VirtualKeysOptions = {}): VirtualKeys {
  const now = options.now ?? Date.now;
  client.defineCommand('toolmaskCreateVirtualKey', { numberOfKeys: 2, lua: CREATE });
  client.defineCommand('toolmaskRevokeVirtualKey', { numberOfKeys: 2, lua: REVOKE });
  const scripts = client as unknown as VirtualKeyScripts;

  return {
    async create(name) {
      checkName(name);
      const rawKey = `tmk_${randomBytes(32).toString('base64url')}`;
      const sha = sha256(rawKey);
      const record = JSON.stringify({ name, createdAt: now() } satisfies VirtualKeyInfo);
      if ((await scripts.toolmaskCreateVirtualKey(NAMES, keyOfSha(sha), name, sha, record)) !== 1) {
        throw new VirtualKeyError('DUPLICATE_NAME', `a key named ${name} exists already`);
      }
      return rawKey;
    },

    async list() {
      const shas = Object.entries(await client.hgetall(NAMES));
      if (shas.length === 0) return [];
      const records = await client.mget(shas.map(([, sha]) => keyOfSha(sha)));
      const found: VirtualKeyInfo[] = [];
      shas.forEach(([name], index) => {
        const info = infoOf(records[index]);
        // A name whose key was revoked meanwhile is left out.
        if (info?.name === name) found.push(info);
      });
      return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },

    async revoke(name) {
      checkName(name);
      const sha = await client.hget(NAMES, name);
      if (sha === null) return false;
      return (await scripts.toolmaskRevokeVirtualKey(NAMES, keyOfSha(sha), name, sha)) === 1;
    },

    async lookup(rawKey) {
      if (typeof rawKey !== 'string' || !RAW_KEY.test(rawKey)) return undefined;
      const info = infoOf(await client.get(keyOfSha(sha256(rawKey))));
      return info ? { name: info.name } : undefined;
    },

    async lookupDigest(sha) {
      if (typeof sha !== 'string' || !/^[0-9a-f]{64}$/.test(sha)) return undefined;
      const info = infoOf(await client.get(keyOfSha(sha)));
      return info ? { name: info.name } : undefined;
    },
  };
}
