/**
 * The keys of a team gateway (several people behind one gateway, its state shared by replicas),
 * and the owners they name: what its tenancy (team-tenancy.ts) asks. Every request carries a key,
 * the way it would to the provider: `x-goog-api-key`, `x-api-key`, `Authorization: Bearer`, or
 * Gemini's `?key=`. The key names its owner:
 *
 * - a virtual key (`tmk_…`, made by `toolmask keys create`): the person it was made for,
 *   `user:<name>`; a model request with one goes upstream with the team's provider key in its
 *   place (the provider never sees a virtual key);
 * - any other key is a provider key: its owner is `key:<SHA-256 prefix>` (the key itself is never
 *   stored), and it goes upstream untouched;
 * - the admin key (`--admin-key-env`): sees every owner's state, never a model request's owner.
 *
 * An owner's conversations are their own (the conversation key is derived with the owner in it),
 * and so are its outputs: `/mcp`, `/api` and the dashboard answer an owner about nothing else. A
 * browser shows its key once (`/?token=<key>`) and keeps a cookie that names the owner, signed
 * with a secret the replicas share (so any replica accepts it) and never the key itself.
 *
 * Virtual keys are looked up in the shared store and remembered for a minute, so a store that
 * is down for a while fails no turn of a person who was just seen; a key never seen while the
 * store is down cannot be checked and is answered 503.
 */
import { createHash, createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { WireErrorCode } from '../errors.js';
import { cookie, firstHeader, tokenMatches } from '../server/credentials.js';
import type { Principal } from '../server/tenancy.js';
import { carriesAnywhere, requestKeys, type KeyPlace } from './request-keys.js';

export type { KeyPlace } from './request-keys.js';

/** The team's virtual keys as the gateway needs them (state/redis/redis-virtual-keys.ts). */
export interface VirtualKeyLookup {
  lookup(rawKey: string): Promise<{ name: string } | undefined>;
}

export interface TeamKeysOptions {
  keys?: VirtualKeyLookup;
  /**
   * The team's provider keys by upstream (`gemini`, `anthropic`, `openai`, ...), each sent in
   * place of a virtual key on that upstream's routes only.
   */
  providerKeys?: Readonly<Record<string, string>>;
  adminKey?: string;
  /** The secret the replicas share for dashboard cookies (fetched once from the store). */
  cookieSecret: () => Promise<string>;
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
const LOOKUP_TTL_MS = 60_000;
const LOOKUP_CACHE_SIZE = 10_000;
const COOKIE_NAME = 'toolmask_team';

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
  return `key:${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 32)}`;
}

export class TeamKeys {
  private readonly remembered = new Map<string, { name: string | undefined; until: number }>();
  private secret?: Promise<string>;
  private readonly now: () => number;

  constructor(private readonly options: TeamKeysOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * A model request's owner on `upstream`'s route (401 without a key, 400 for a key given twice or
   * two credentials, 403 for the admin key anywhere in it or an unknown virtual key).
   */
  async modelOwner(request: IncomingMessage, upstream: string): Promise<ModelOwner> {
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
      owner: `user:${name}`,
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

  /** Who asks on the gateway's own endpoints: a key in a header, or the dashboard cookie. */
  async principal(request: IncomingMessage): Promise<Principal | undefined> {
    const header = firstHeader(request, 'x-toolmask-token')?.trim();
    if (header) return this.principalOfKey(header);
    const keys = requestKeys(request);
    if (keys.kind === 'ambiguous') return undefined;
    if (keys.kind === 'one') return this.principalOfKey(keys.found.key);
    return this.principalOfCookie(request);
  }

  /** The principal a key names, or undefined for none (an unknown virtual key). */
  async principalOfKey(key: string): Promise<Principal | undefined> {
    if (this.options.adminKey && tokenMatches(key, this.options.adminKey)) return { kind: 'admin' };
    if (!key.startsWith(VIRTUAL_KEY_PREFIX)) {
      return { kind: 'owner', owner: providerKeyOwner(key) };
    }
    try {
      const name = await this.virtualKeyName(key);
      return name === undefined ? undefined : { kind: 'owner', owner: `user:${name}` };
    } catch {
      return undefined;
    }
  }

  /** The dashboard cookie for a principal: its owner, and a signature the replicas share. */
  async cookieFor(principal: Principal): Promise<{ name: string; value: string }> {
    const subject = principal.kind === 'admin' ? 'admin' : principal.owner;
    const value = `${Buffer.from(subject, 'utf8').toString('base64url')}.${await this.sign(subject)}`;
    return { name: COOKIE_NAME, value };
  }

  private async principalOfCookie(request: IncomingMessage): Promise<Principal | undefined> {
    const value = cookie(request, COOKIE_NAME);
    const [encoded, signature] = (value ?? '').split('.');
    if (!encoded || !signature) return undefined;
    const subject = Buffer.from(encoded, 'base64url').toString('utf8');
    let expected: string;
    try {
      expected = await this.sign(subject);
    } catch {
      return undefined;
    }
    if (!tokenMatches(signature, expected)) return undefined;
    return subject === 'admin' ? { kind: 'admin' } : { kind: 'owner', owner: subject };
  }

  private async sign(subject: string): Promise<string> {
    this.secret ??= this.options.cookieSecret().catch((error: unknown) => {
      this.secret = undefined; // the store is back later: ask again
      throw error;
    });
    return createHmac('sha256', await this.secret)
      .update(`toolmask team cookie v1\u0000${subject}`)
      .digest('base64url');
  }

  /** A virtual key's name, from memory when it was looked up within the last minute. */
  private async virtualKeyName(key: string): Promise<string | undefined> {
    const digest = createHash('sha256').update(key, 'utf8').digest('hex');
    const known = this.remembered.get(digest);
    const now = this.now();
    if (known && known.until > now) return known.name;
    if (!this.options.keys) return undefined;
    try {
      const found = await this.options.keys.lookup(key);
      this.remember(digest, found?.name, now);
      return found?.name;
    } catch (error) {
      // The store is down: a key seen before still works (revocation waits for the store).
      if (known) return known.name;
      throw error;
    }
  }

  private remember(digest: string, name: string | undefined, now: number): void {
    this.remembered.delete(digest);
    this.remembered.set(digest, { name, until: now + LOOKUP_TTL_MS });
    if (this.remembered.size > LOOKUP_CACHE_SIZE) {
      const oldest = this.remembered.keys().next().value;
      if (oldest !== undefined) this.remembered.delete(oldest);
    }
  }
}

/** Whether `principal` may see what belongs to `owner`. */
export function mayRead(principal: Principal | undefined, owner: string | undefined): boolean {
  if (!principal) return false;
  return principal.kind === 'admin' || (owner !== undefined && principal.owner === owner);
}
