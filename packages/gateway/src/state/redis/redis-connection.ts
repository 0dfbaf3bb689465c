/**
 * The connection of a team gateway to Redis (`--store redis://…`), tuned so that Redis being
 * slow or gone never holds a model request: a command rejects after `commandTimeoutMs` (250 ms
 * by default) instead of waiting, a command sent while the connection is down rejects at once
 * (no offline queue, no retry of a command, no replay after a reconnect), and the client keeps
 * reconnecting in the background forever, at most a second apart, so the same client works again
 * as soon as Redis is back (and a new client works once it is connected: `redisReady`). Connection errors reach `onError` as one line each (a run of the same
 * error once, until the connection is ready again), never as unhandled `'error'` events, and no
 * message, error or address shown ever holds the password.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { ToolmaskError, describeError } from '@toolmask/core/errors';

/**
 * A Redis setting the gateway cannot use: `BAD_STORE_URL`, a `--store` value that is not a Redis
 * URL; `BAD_KEY_PREFIX`, a key prefix with braces.
 */
export class RedisSettingError extends ToolmaskError<'BAD_STORE_URL' | 'BAD_KEY_PREFIX'> {}

const EXPECTED_FORM = 'redis://HOST:PORT[/DB] or rediss://[USER:PASSWORD@]HOST:PORT[/DB]';
const DEFAULT_PORT = 6379;

export interface RedisAddress {
  /** `rediss://`: TLS. */
  tls: boolean;
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  /** The URL as messages show it: the password replaced by `***`. */
  display: string;
}

/** `text` with the password of a `scheme://user:password@` prefix replaced by `***`. */
function withoutPassword(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*):[^/@]*@/i, '$1:***@');
}

/**
 * Parses and checks a Redis URL: `redis://` or `rediss://` (TLS), an optional `USER:PASSWORD@`
 * (or `:PASSWORD@`), a host, a port (6379 when absent) and a database number (0 when absent).
 * Throws `RedisSettingError`, naming `--store` and the expected form, for anything else.
 */
export function parseRedisUrl(text: string): RedisAddress {
  const refuse = (why: string): never => {
    throw new RedisSettingError(
      'BAD_STORE_URL',
      `--store ${JSON.stringify(withoutPassword(String(text)))}: ${why} (expected ${EXPECTED_FORM})`,
    );
  };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse('not a URL');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    refuse(`the scheme must be redis: or rediss:, not ${url.protocol}`);
  }
  // Non-special schemes keep IPv6 brackets in `hostname`.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) refuse('no host');
  const port = url.port === '' ? DEFAULT_PORT : Number(url.port);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) refuse('the port must be 1 to 65535');
  const dbText = url.pathname.replace(/^\//, '');
  if (!/^\d{0,5}$/.test(dbText)) refuse('the path must be a database number');
  const db = dbText === '' ? 0 : Number(dbText);
  if (url.search || url.hash) refuse('no query or fragment is accepted');
  let username: string | undefined;
  let password: string | undefined;
  try {
    username = url.username ? decodeURIComponent(url.username) : undefined;
    password = url.password ? decodeURIComponent(url.password) : undefined;
  } catch {
    refuse('the user or password is not valid percent-encoding');
  }
  const tls = url.protocol === 'rediss:';
  const credentials =
    username === undefined && password === undefined
      ? ''
      : `${url.username}${password === undefined ? '' : ':***'}@`;
  const hostShown = host.includes(':') ? `[${host}]` : host;
  const address: RedisAddress = {
    tls,
    host,
    port,
    db,
    display: `${url.protocol}//${credentials}${hostShown}:${port}/${db}`,
  };
  if (username !== undefined) address.username = username;
  if (password !== undefined) address.password = password;
  return address;
}

export interface RedisConnectionOptions {
  /** Milliseconds a command may take before it rejects with "Command timed out". @default 250 */
  commandTimeoutMs?: number;
  /** Prepended to every key (several gateways or teams may share one Redis). @default 'toolmask:' */
  keyPrefix?: string;
  /** The longest wait between two reconnection attempts, in ms. @default 1000 */
  maxReconnectDelayMs?: number;
  /**
   * Milliseconds without a byte from Redis while commands wait, after which the connection counts
   * as dead and is made again (a peer gone without closing it). Generous enough for a large
   * output to be sent. @default 5000
   */
  socketTimeoutMs?: number;
  /** Milliseconds to open the connection (TCP and TLS). @default 2000 */
  connectTimeoutMs?: number;
  /** Connection problems, one line each, without the password. */
  onError?: (message: string) => void;
  /** The name Redis shows for the connection (`CLIENT LIST`). @default 'toolmask-gateway' */
  connectionName?: string;
}

/**
 * Opens a client for `target` (a URL, checked by `parseRedisUrl`, or a parsed address). It starts
 * connecting at once and never stops retrying; close it with `closeRedisConnection`.
 */
export function openRedisConnection(
  target: string | RedisAddress,
  options: RedisConnectionOptions = {},
): Redis {
  const address = typeof target === 'string' ? parseRedisUrl(target) : target;
  const keyPrefix = options.keyPrefix ?? 'toolmask:';
  // Hash tags (`{…}`) in key names keep one conversation in one cluster slot; braces in the
  // prefix would take their place.
  if (/[{}]/.test(keyPrefix)) {
    throw new RedisSettingError(
      'BAD_KEY_PREFIX',
      `a Redis key prefix cannot hold { or }: ${JSON.stringify(keyPrefix)}`,
    );
  }
  const maxDelay = options.maxReconnectDelayMs ?? 1_000;
  const redisOptions: RedisOptions = {
    host: address.host,
    port: address.port,
    db: address.db,
    keyPrefix,
    connectionName: options.connectionName ?? 'toolmask-gateway',
    // RESP2: no HELLO, so Redis-compatible services and proxies without RESP3 work too.
    protocol: 2,
    disableClientInfo: true,
    enableOfflineQueue: false,
    commandTimeout: options.commandTimeoutMs ?? 250,
    socketTimeout: options.socketTimeoutMs ?? 5_000,
    connectTimeout: options.connectTimeoutMs ?? 2_000,
    // A command fails with its connection and is never sent again: a replayed append could
    // land after the request it belonged to had gone on without it.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    // 50, 100, 200 … ms, then every `maxDelay` ms (with a little jitter), forever.
    retryStrategy: (times) =>
      Math.min(50 * 2 ** Math.min(times - 1, 10), maxDelay) + Math.floor(Math.random() * 50),
  };
  if (address.tls) redisOptions.tls = {};
  if (address.username !== undefined) redisOptions.username = address.username;
  if (address.password !== undefined) redisOptions.password = address.password;
  const client = new Redis(redisOptions);

  const onError = options.onError ?? (() => undefined);
  let lastReported: string | undefined;
  client.on('error', (error: unknown) => {
    let message = `redis ${address.display}: ${describeError(error)}`;
    if (address.password) message = message.split(address.password).join('***');
    if (message === lastReported) return;
    lastReported = message;
    try {
      onError(message);
    } catch {
      // a failing logger must not become an unhandled error of the client
    }
  });
  client.on('ready', () => {
    lastReported = undefined;
  });
  return client;
}

/**
 * Resolves true once the client is ready (at once when it is), false after `timeoutMs` or when it
 * was closed. Commands sent before then reject (there is no offline queue), so a gateway that
 * starts waits here first, for as long as it may.
 */
export function redisReady(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('end', onEnd);
      resolve(ready);
    };
    const onReady = () => done(true);
    const onEnd = () => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    client.on('ready', onReady);
    client.on('end', onEnd);
  });
}

/** Closes a client: politely when Redis answers, at once when it does not. */
export async function closeRedisConnection(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}
