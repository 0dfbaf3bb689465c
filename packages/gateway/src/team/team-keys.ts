/**
 * The keys of a team gateway (several people behind one gateway, its state shared by replicas),
 * and the owners they name: what its tenancy (team-tenancy.ts) asks. Every request carries a key,
 * the way it would to the provider: `x-goog-api-key`, `x-api-key`, `Authorization: Bearer`, or
 * Gemini's `?key=`. The key names its owner:
 *
 * - a virtual key (`tmk_…`, made by `toolmask keys create`): the person it was made for,
 *   `user:<name>`; a model call or model list with one goes upstream with the team's provider
 *   key in its place (the provider never sees a virtual key), and any other path of the API is
 *   refused (virtual-key-paths.ts);
 * - any other key is a provider key: its owner is `key:<SHA-256 prefix>` (the key itself is never
 *   stored), and it goes upstream untouched;
 * - the admin key (`--admin-key-env`): sees every owner's state, never a model request's owner.
 *
 * An owner's conversations are their own (the conversation key is derived with the owner in it),
 * and so are its outputs: `/mcp`, `/api` and the dashboard answer an owner about nothing else. A
 * browser shows its key once (`/?token=<key>`) and keeps a cookie that names the owner, signed
 * with a secret the replicas share (so any replica accepts it) and never the key itself.
 *
 * Virtual keys are looked up in the shared store and remembered for a minute (key-lookup-cache.ts),
 * so a store that is down for a while fails no turn of a person who was just seen (for up to ten
 * minutes); a key never seen while the store is down cannot be checked and is answered 503.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { describeError } from '@toolmask/core/errors';
import { StoreUnavailableError, type WireErrorCode } from '../errors.js';
import { firstHeader, tokenMatches } from '../server/credentials.js';
import type { Credential, Principal } from '../server/tenancy.js';
import { KeyLookupCache } from './key-lookup-cache.js';
import { TeamCookies, type IssuedCookie } from './team-cookie.js';
import { carriesAnywhere, requestKeys, type KeyPlace } from './request-keys.js';
import { closedPathMessage, openToVirtualKeys } from './virtual-key-paths.js';

export type { KeyPlace } from './request-keys.js';

/** The team's virtual keys as the gateway needs them (state/redis/redis-virtual-keys.ts). */
export interface VirtualKeyLookup {
  lookup(rawKey: string): Promise<{ name: string } | undefined>;
  /** The same, by the key's SHA-256 (hex): what a dashboard cookie holds. */
  lookupDigest?(sha256: string): Promise<{ name: string } | undefined>;
}

export interface TeamKeysOptions {
  keys?: VirtualKeyLookup;
  /**
   * The team's provider keys by upstream (`gemini`, `anthropic`, `openai`, ...), each sent in
   * place of a virtual key on that upstream's routes only.
   */
  providerKeys?: Readonly<Record<string, string>>;
  adminKey?: string;
  /** The secret the replicas share for dashboard cookies (from their environment). */
  cookieSecret: () => Promise<string>;
  /** How long a dashboard cookie holds. @default DEFAULT_COOKIE_LIFETIME_MS (12 h) */
  cookieLifetimeMs?: number;
  now?: () => number;
}

/** A model request's owner, and how to forward it. */
export type ModelOwner =
  | {
      kind: 'owner';
      owner: string;
      /** Set for a virtual key: the team's provider key, to be put where the key was. */
      replace?: { place: KeyPlace; value: string };
    }
  | { kind: 'refused'; status: number; code: WireErrorCode; message: string };

export const VIRTUAL_KEY_PREFIX = 'tmk_';

const NO_KEY_REFUSED: ModelOwner = {
  kind: 'refused',
  status: 401,
  code: 'NO_KEY',
  message:
    'a team gateway needs a key on every request: your virtual key (toolmask keys create) or your provider key',
};
const AMBIGUOUS_REFUSED: ModelOwner = {
  kind: 'refused',
  status: 400,
  code: 'AMBIGUOUS_KEY',
  message:
    'this request carries more than one key (a key given twice, or two credentials); send one key in one place',
};
const ADMIN_REFUSED: ModelOwner = {
  kind: 'refused',
  status: 403,
  code: 'ADMIN_KEY',
  message: 'the admin key reads state; it does not send model requests',
};

/** The owner a provider key names: a prefix of its SHA-256 (enough to tell keys apart, not to find one). */
export function providerKeyOwner(key: string): string {
  return `key:${sha256(key).slice(0, 32)}`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The owner a virtual key names: its name and a prefix of the key's SHA-256, so a key made again
 * with a name that was used before is someone new (it reads nothing of the earlier key's).
 */
export function virtualKeyOwner(name: string, digest: string): string {
  return `user:${name}#${digest.slice(0, 8)}`;
}

export class TeamKeys {
  private readonly lookups: KeyLookupCache;
  private readonly cookies: TeamCookies;
  private readonly now: () => number;

  constructor(private readonly options: TeamKeysOptions) {
    this.now = options.now ?? Date.now;
    this.lookups = new KeyLookupCache(this.now);
    this.cookies = new TeamCookies({
      secret: options.cookieSecret,
      now: this.now,
      ...(options.cookieLifetimeMs ? { lifetimeMs: options.cookieLifetimeMs } : {}),
    });
  }

  /**
   * A model request's owner on `upstream`'s route, for `path` there (401 without a key, 400 for a
   * key given twice or two credentials, 403 for the admin key anywhere in it, an unknown virtual
   * key, or a virtual key on a path it does not open: virtual-key-paths.ts).
   */
  async modelOwner(request: IncomingMessage, upstream: string, path: string): Promise<ModelOwner> {
    const { adminKey } = this.options;
    // Never forwarded, in any form: a request that carries it anywhere is no model request.
    if (adminKey && carriesAnywhere(request, adminKey, tokenMatches)) return ADMIN_REFUSED;
    const keys = requestKeys(request);
    if (keys.kind === 'none') return NO_KEY_REFUSED;
    if (keys.kind === 'ambiguous') return AMBIGUOUS_REFUSED;
    const { found } = keys;
    if (adminKey && tokenMatches(found.key, adminKey)) return ADMIN_REFUSED;
    if (!found.key.startsWith(VIRTUAL_KEY_PREFIX)) {
      return { kind: 'owner', owner: providerKeyOwner(found.key) };
    }
    // Before the key is looked up: a closed path is refused whoever holds the key.
    const method = request.method ?? 'GET';
    if (!openToVirtualKeys(upstream, method, path)) {
      const message = closedPathMessage(method, path);
      return { kind: 'refused', status: 403, code: 'NOT_FOR_VIRTUAL_KEYS', message };
    }
    const digest = sha256(found.key);
    let name: string | undefined;
    try {
      name = await this.virtualKeyName(found.key);
    } catch {
      return {
        kind: 'refused',
        status: 503,
        code: 'KEYS_UNAVAILABLE',
        message: 'the team store cannot be reached to check this virtual key; retry in a moment',
      };
    }
    if (name === undefined) {
      return { kind: 'refused', status: 403, code: 'UNKNOWN_KEY', message: 'unknown virtual key' };
    }
    const providerKey = this.options.providerKeys?.[upstream];
    if (!providerKey) return this.noProviderKey(upstream);
    return {
      kind: 'owner',
      owner: virtualKeyOwner(name, digest),
      replace: { place: found.place, value: providerKey },
    };
  }

  /** A virtual key on a route whose upstream has no team key: refused, naming the ones there are. */
  private noProviderKey(upstream: string): ModelOwner {
    const have = Object.keys(this.options.providerKeys ?? {});
    if (have.length === 0) {
      return {
        kind: 'refused',
        status: 502,
        code: 'NO_PROVIDER_KEY',
        message:
          'this gateway has no provider key for virtual keys (start it with --provider-key-env NAME)',
      };
    }
    return {
      kind: 'refused',
      status: 403,
      code: 'WRONG_PROVIDER',
      message: `a virtual key on this gateway is for ${have.join(', ')} requests; it has no team key for ${upstream} (--provider-key-env ${upstream}=NAME)`,
    };
  }

  /**
   * Who asks on the gateway's own endpoints: a key in a header, or the dashboard cookie where the
   * route takes one (`accepted`; never `/mcp` or a model route).
   */
  async principal(
    request: IncomingMessage,
    accepted: readonly Credential[],
  ): Promise<Principal | undefined> {
    const header = firstHeader(request, 'x-toolmask-token')?.trim();
    if (header) return this.principalOfKey(header);
    const keys = requestKeys(request);
    if (keys.kind === 'ambiguous') return undefined;
    if (keys.kind === 'one') return this.principalOfKey(keys.found.key);
    return accepted.includes('cookie') ? this.principalOfCookie(request) : undefined;
  }

  /**
   * The principal a key names, or undefined for none (an unknown virtual key, or one that cannot
   * be checked now). `unchecked: 'throw'`: a key that cannot be checked throws
   * `StoreUnavailableError` instead (`/?token=` answers 503, not a sign-in page).
   */
  async principalOfKey(
    key: string,
    unchecked: 'none' | 'throw' = 'none',
  ): Promise<Principal | undefined> {
    if (this.options.adminKey && tokenMatches(key, this.options.adminKey)) return { kind: 'admin' };
    if (!key.startsWith(VIRTUAL_KEY_PREFIX)) {
      return { kind: 'owner', owner: providerKeyOwner(key) };
    }
    try {
      const name = await this.virtualKeyName(key);
      return name === undefined
        ? undefined
        : { kind: 'owner', owner: virtualKeyOwner(name, sha256(key)) };
    } catch (error) {
      if (unchecked === 'none') return undefined;
      throw new StoreUnavailableError(
        'STORE_UNAVAILABLE',
        `the team store cannot be reached to check this key; retry in a moment (${describeError(error)})`,
      );
    }
  }

  /** The dashboard cookie `key` earns `principal` (team-cookie.ts): never the key itself. */
  async cookieFor(principal: Principal, key: string): Promise<IssuedCookie> {
    if (principal.kind === 'admin') return this.cookies.issue('admin', adminKeyId(key));
    const keyId = principal.owner.startsWith('key:') ? principal.owner.slice(4) : sha256(key);
    return this.cookies.issue(principal.owner, keyId);
  }

  /** The cookie's principal while its key still names it: revoked or rotated, none. */
  private async principalOfCookie(request: IncomingMessage): Promise<Principal | undefined> {
    const claims = await this.cookies.read(request);
    if (!claims) return undefined;
    const { subject, keyId } = claims;
    const { adminKey } = this.options;
    if (subject === 'admin') {
      return adminKey && tokenMatches(keyId, adminKeyId(adminKey)) ? { kind: 'admin' } : undefined;
    }
    if (subject.startsWith('key:')) {
      return subject === `key:${keyId}` ? { kind: 'owner', owner: subject } : undefined;
    }
    const lookup = this.options.keys?.lookupDigest?.bind(this.options.keys);
    if (!lookup || !/^[0-9a-f]{64}$/.test(keyId)) return undefined;
    try {
      const name = await this.nameOfDigest(keyId, () => lookup(keyId));
      const owner = name === undefined ? undefined : virtualKeyOwner(name, keyId);
      return owner === subject ? { kind: 'owner', owner } : undefined;
    } catch {
      return undefined;
    }
  }

  /** A virtual key's name, from memory when it was looked up within the last minute. */
  private async virtualKeyName(key: string): Promise<string | undefined> {
    const { keys } = this.options;
    return this.nameOfDigest(sha256(key), async () => keys?.lookup(key));
  }

  /** The name of the key whose SHA-256 is `digest` (key-lookup-cache.ts), else `lookup`. */
  private async nameOfDigest(
    digest: string,
    lookup: () => Promise<{ name: string } | undefined>,
  ): Promise<string | undefined> {
    if (!this.options.keys) return undefined;
    return this.lookups.nameOf(digest, lookup);
  }
}

/** The id of the admin key a cookie holds: a prefix of its SHA-256 (a rotated key has another). */
function adminKeyId(adminKey: string): string {
  return sha256(`toolmask admin key\u0000${adminKey}`).slice(0, 32);
}

/** Whether `principal` may see what belongs to `owner`. */
export function mayRead(principal: Principal | undefined, owner: string | undefined): boolean {
  if (!principal) return false;
  return principal.kind === 'admin' || (owner !== undefined && principal.owner === owner);
}
