/**
 * `toolmask gateway --store redis://...`: one replica of a team gateway (docs/team.md). Its
 * shared stores are opened here from the flags, the keys it forwards or checks are read from the
 * environment variables the flags name (never from the command line, where `ps` shows them), and
 * a Redis that does not answer yet is waited for briefly, then left to come: the gateway serves
 * from the start, unmasked until the store answers.
 */
import { createHmac, randomBytes } from 'node:crypto';
import * as os from 'node:os';
import {
  openTeamStores,
  type GatewayOptions,
  type TeamOptions,
  type TeamStores,
} from '@toolmask/gateway';
import { usageError } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';
import { storeWithPassword } from '../store-password.js';
import type { GatewayCommandOptions } from './gateway-options.js';

/** How long a starting replica waits for Redis before it serves anyway. */
const READY_WAIT_MS = 5_000;

export interface OpenedTeam {
  stores: NonNullable<GatewayOptions['stores']>;
  options: TeamOptions;
  /** Names besides loopback ones a loopback-bound replica answers (`--public-host`). */
  allowedHosts: string[];
  description: string;
  close(): Promise<void>;
}

/** The value of the environment variable a flag names; a usage error when it is unset or empty. */
function keyFromEnv(io: CliIo, flag: string, name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const value = io.env[name];
  if (!value) throw usageError(`${flag} ${name}: the environment variable ${name} is not set`);
  return value;
}

/** The APIs a team key may be named for (`--provider-key-env anthropic=NAME`). */
const PROVIDER_APIS = ['gemini', 'vertex', 'codeAssist', 'openai', 'anthropic'] as const;
type ProviderKeys = NonNullable<TeamOptions['providerKeys']>;

/**
 * The team's provider keys by API: `NAME` alone is the Gemini API's key; `gemini=NAME,anthropic=NAME2`
 * one per API. A virtual key is swapped for the key of its route's API only.
 */
function providerKeysFromEnv(io: CliIo, value: string | undefined): ProviderKeys | undefined {
  const flag = '--provider-key-env';
  if (value === undefined) return undefined;
  if (!value.includes('=')) return { gemini: keyFromEnv(io, flag, value) ?? '' };
  const keys: ProviderKeys = {};
  for (const pair of value.split(',')) {
    const [api = '', name = ''] = pair.split('=');
    const known = PROVIDER_APIS.find((candidate) => candidate === api.trim());
    if (!known) {
      throw usageError(`${flag} ${pair}: name an API (${PROVIDER_APIS.join(', ')}) before =`);
    }
    keys[known] = keyFromEnv(io, flag, name.trim()) ?? '';
  }
  return keys;
}

/**
 * The secret the replicas sign dashboard cookies with, from their environment, never from the
 * store (a copy of Redis must forge no cookie): `--cookie-secret-env`, else derived from the admin
 * key (every replica has it; rotating it ends every cookie), else a random one of this replica's
 * (its cookies then hold on it alone, which it says).
 */
function teamCookieSecret(
  io: CliIo,
  name: string | undefined,
  adminKey: string | undefined,
): string {
  const given = keyFromEnv(io, '--cookie-secret-env', name);
  if (given) return given;
  if (adminKey)
    return createHmac('sha256', adminKey).update('toolmask team cookie secret v1').digest('hex');
  io.stderr.write(
    'toolmask gateway: no --cookie-secret-env and no --admin-key-env: dashboard cookies hold on this replica only\n',
  );
  return randomBytes(32).toString('hex');
}

export async function openTeam(
  options: GatewayCommandOptions,
  io: CliIo,
): Promise<OpenedTeam | undefined> {
  if (!options.store) {
    const teamOnly = (
      [
        ['--outputs', options.outputs],
        ['--s3-endpoint', options.s3Endpoint],
        ['--provider-key-env', options.providerKeyEnv],
        ['--admin-key-env', options.adminKeyEnv],
        ['--cookie-secret-env', options.cookieSecretEnv],
        ['--public-host', options.publicHost],
        ['--behind-tls', options.behindTls],
      ] as const
    ).find(([, value]) => value !== undefined);
    if (teamOnly) throw usageError(`${teamOnly[0]} is for a team gateway: add --store redis://...`);
    return undefined;
  }
  if (options.authToken ?? io.env['TOOLMASK_GATEWAY_TOKEN']) {
    throw usageError(
      'a team gateway asks each request for its own key: --auth-token (TOOLMASK_GATEWAY_TOKEN) is not used with --store',
    );
  }
  if (options.s3Endpoint !== undefined && !options.outputs?.startsWith('s3://')) {
    throw usageError('--s3-endpoint goes with --outputs s3://BUCKET/PREFIX');
  }
  const providerKeys = providerKeysFromEnv(io, options.providerKeyEnv);
  const adminKey = keyFromEnv(io, '--admin-key-env', options.adminKeyEnv);
  const cookieSecret = teamCookieSecret(io, options.cookieSecretEnv, adminKey);
  let stores: TeamStores;
  try {
    stores = await openTeamStores({
      store: storeWithPassword(io, options.store),
      ...(options.outputs !== undefined ? { outputs: options.outputs } : {}),
      ...(options.s3Endpoint !== undefined ? { s3Endpoint: options.s3Endpoint } : {}),
      retentionDays: options.retentionDays,
      log: (line) => io.stderr.write(`${line}\n`),
    });
  } catch (error) {
    throw usageError((error as Error).message);
  }
  if (!(await stores.ready(READY_WAIT_MS))) {
    io.stderr.write(
      `toolmask gateway: Redis does not answer yet (${stores.description}); serving unmasked until it does\n`,
    );
  }
  return {
    stores: { conversations: stores.conversations, usage: stores.usage },
    options: {
      outputs: stores.outputs,
      keys: stores.keys,
      proofs: stores.proofs,
      ownerOutputs: stores.ownerOutputs,
      ...(providerKeys ? { providerKeys } : {}),
      ...(adminKey ? { adminKey } : {}),
      cookieSecret: async () => cookieSecret,
      instance: options.instance ?? `${os.hostname()}:${options.port}`,
    },
    allowedHosts: (options.publicHost ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
    description: stores.description,
    close: () => stores.close(),
  };
}

/**
 * What a replica bound beyond loopback says at start unless `--behind-tls`: every request it
 * serves carries a key, and it speaks plain HTTP (docs/team.md, TLS).
 */
export function plainHttpWarning(host: string, behindTls: boolean | undefined): string | undefined {
  const loopback = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i.test(host);
  if (behindTls || loopback) return undefined;
  return `toolmask gateway: warning: listening on ${host} over plain HTTP, and every request carries a key: put a TLS terminator in front and never expose this port (docs/team.md, TLS); --behind-tls once it is there\n`;
}
