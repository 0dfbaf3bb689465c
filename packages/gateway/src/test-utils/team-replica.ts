/**
 * A team replica on a real `redis-server` for tests: its own state folder, the team's stores
 * opened on the Redis at `redisUrl` (outputs there, or in `outputs`), the gateway started with
 * them, an admin key and a cookie secret. What it starts is taken down by `cleanups`.
 */
import { expect } from 'vitest';
import { geminiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import { openTeamStores, type TeamStores } from '../state/team-stores.js';
import type { ListenOptions, RunningGateway } from '../listen-gateway.js';
import { gatewayFixture, startTestGateway } from './gemini-client.js';
import { memoryTeamStores, type MemoryTeamStores } from './memory-team-stores.js';

export const ADMIN_KEY = 'the-admin-key';

export interface TeamReplicaOptions {
  redisUrl: string;
  upstreamUrl: string;
  cleanups: Array<() => Promise<void>>;
  /** Where outputs go (an `outputs` store URL or folder). @default Redis */
  outputs?: string;
  /** Index each owner's outputs, so `/mcp` offers `search_tool_outputs`. @default false */
  search?: boolean;
  /** The team's provider keys. @default none (each person's own key) */
  providerKeys?: { gemini: string };
}

export async function startTeamReplica(
  options: TeamReplicaOptions,
): Promise<{ stores: TeamStores; running: RunningGateway }> {
  const { cleanups } = options;
  const fixture = await gatewayFixture();
  cleanups.push(fixture.cleanup);
  const stores = await openTeamStores({
    store: options.redisUrl,
    ...(options.outputs ? { outputs: options.outputs } : {}),
    retentionDays: 1,
    log: () => undefined,
  });
  cleanups.push(() => stores.close());
  expect(await stores.ready(5_000)).toBe(true);
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { gemini: options.upstreamUrl },
    stores: { conversations: stores.conversations, usage: stores.usage },
    team: {
      outputs: stores.outputs,
      keys: stores.keys,
      proofs: stores.proofs,
      ...(options.search ? { ownerOutputs: stores.ownerOutputs } : {}),
      cookieSecret: async () => 'team-cookie-secret',
      adminKey: ADMIN_KEY,
      ...(options.providerKeys ? { providerKeys: options.providerKeys } : {}),
    },
  });
  cleanups.push(() => running.close());
  return { stores, running };
}

type TeamParts = NonNullable<ListenOptions['team']>;

/**
 * A team replica on in-memory stores, in front of a fake Gemini upstream that answers "ok", with
 * the admin key and a cookie secret; `team` replaces parts (keys, provider keys, an outputs store
 * that holds reads). What it starts is taken down by `cleanups`.
 */
export async function startMemoryTeamReplica(
  cleanups: Array<() => Promise<void>>,
  team: (stores: MemoryTeamStores) => Partial<TeamParts> = () => ({}),
) {
  const fixture = await gatewayFixture();
  cleanups.push(fixture.cleanup);
  const upstream = await startFakeUpstream(() => geminiAnswer([{ text: 'ok' }]));
  cleanups.push(() => upstream.close());
  const stores = memoryTeamStores();
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { gemini: upstream.url },
    stores: { conversations: stores.conversations, usage: stores.usage },
    team: {
      outputs: stores.outputs,
      proofs: stores.proofs,
      cookieSecret: async () => 'team-cookie-secret',
      adminKey: ADMIN_KEY,
      ...team(stores),
    },
  });
  cleanups.push(() => running.close());
  return { running, upstream, stores };
}
