/**
 * The dashboard cookie of a team gateway (issue 33, findings 3 and 4). A browser shows its key once
 * (`/?token=<key>`) and keeps this cookie, which says:
 *
 * - who: the owner (or `admin`), and the id of the key that earned it (the SHA-256 of a virtual
 *   key, a prefix of the admin key's or of a provider key's), so the key's current state is
 *   checked on every use (team-keys.ts): a revoked or rotated key ends its cookies;
 * - until when: `expiresAt`, `DEFAULT_COOKIE_LIFETIME_MS` after it was made unless configured;
 * - signed with an HMAC of a secret from the replica's environment (`TeamOptions.cookieSecret`,
 *   never kept in the shared store): a copy of the store forges none.
 *
 * It is never the key itself.
 */
import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { cookie, tokenMatches } from '../server/credentials.js';

export const COOKIE_NAME = 'toolmask_team';
/** 12 hours: a working day, then the key is shown again. */
export const DEFAULT_COOKIE_LIFETIME_MS = 12 * 60 * 60_000;

export interface CookieClaims {
  /** `admin`, or the owner (`user:…`, `key:…`). */
  subject: string;
  /** The id of the key that earned the cookie. */
  keyId: string;
  /** Epoch ms. */
  expiresAt: number;
}

export interface IssuedCookie {
  name: string;
  value: string;
  maxAgeSeconds: number;
}

export interface TeamCookieOptions {
  secret: () => Promise<string>;
  lifetimeMs?: number;
  now?: () => number;
}

export class TeamCookies {
  private secret?: Promise<string>;
  private readonly lifetimeMs: number;
  private readonly now: () => number;

  constructor(private readonly options: TeamCookieOptions) {
    this.lifetimeMs = options.lifetimeMs ?? DEFAULT_COOKIE_LIFETIME_MS;
    this.now = options.now ?? Date.now;
  }

  async issue(subject: string, keyId: string): Promise<IssuedCookie> {
    const claims: CookieClaims = { subject, keyId, expiresAt: this.now() + this.lifetimeMs };
    const payload = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
    return {
      name: COOKIE_NAME,
      value: `${payload}.${await this.sign(payload)}`,
      maxAgeSeconds: Math.floor(this.lifetimeMs / 1000),
    };
  }

  /** The cookie's claims when it is signed and not expired; undefined otherwise. */
  async read(request: IncomingMessage): Promise<CookieClaims | undefined> {
    const [payload, signature, extra] = (cookie(request, COOKIE_NAME) ?? '').split('.');
    if (!payload || !signature || extra !== undefined) return undefined;
    let expected: string;
    try {
      expected = await this.sign(payload);
    } catch {
      return undefined;
    }
    if (!tokenMatches(signature, expected)) return undefined;
    const claims = parseClaims(payload);
    return claims && claims.expiresAt > this.now() ? claims : undefined;
  }

  private async sign(payload: string): Promise<string> {
    this.secret ??= this.options.secret().catch((error: unknown) => {
      this.secret = undefined; // asked again next time
      throw error;
    });
    return createHmac('sha256', await this.secret)
      .update(`toolmask team cookie v2\u0000${payload}`)
      .digest('base64url');
  }
}

function parseClaims(payload: string): CookieClaims | undefined {
  try {
    const value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
    const claims = value as Partial<CookieClaims> | null;
    if (
      claims &&
      typeof claims.subject === 'string' &&
      typeof claims.keyId === 'string' &&
      typeof claims.expiresAt === 'number'
    ) {
      return { subject: claims.subject, keyId: claims.keyId, expiresAt: claims.expiresAt };
    }
  } catch {
    // not a cookie of ours
  }
  return undefined;
}
