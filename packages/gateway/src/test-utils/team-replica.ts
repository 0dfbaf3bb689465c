/**
 * A team replica on a real `redis-server` for tests: its own state folder, the team's stores
 * opened on the Redis at `redisUrl` (outputs there, or in `outputs`), the gateway started with
 * them, an admin key and a cookie secret. What it starts is taken down by `cleanups`.
 */
import { expect } from 'vitest';
import {
  geminiAnswer,
  startFakeUpstream,
  type UpstreamResponder,
} from '@toolmask/test-support/fake-upstream';
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

type TeamParts = NonNullable<ListenOptions['team']>;
type ReplicaStores = Pick<TeamStores, 'conversations' | 'usage' | 'outputs' | 'proofs'>;

/**
 * A gateway on `stores` in front of `upstreamUrl` (Gemini's upstream, or every front's with
 * `allFronts`), with the admin key and a cookie secret; `team` adds or replaces parts. The one
 * setup both replicas below share.
 */
async function startReplicaOn(
  cleanups: Array<() => Promise<void>>,
  upstreamUrl: string,
  stores: ReplicaStores,
  team: Partial<TeamParts>,
  allFronts = false,
): Promise<RunningGateway> {
  const fixture = await gatewayFixture();
  cleanups.push(fixture.cleanup);
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: allFronts
      ? { openai: `${upstreamUrl}/v1`, gemini: upstreamUrl, anthropic: upstreamUrl }
      : { gemini: upstreamUrl },
    stores: { conversations: stores.conversations, usage: stores.usage },
    team: {
      outputs: stores.outputs,
      proofs: stores.proofs,
      cookieSecret: async () => 'team-cookie-secret',
      adminKey: ADMIN_KEY,
      ...team,
    },
  });
  cleanups.push(() => running.close());
  return running;
}

export async function startTeamReplica(
  options: TeamReplicaOptions,
): Promise<{ stores: TeamStores; running: RunningGateway }> {
  const { cleanups } = options;
  const stores = await openTeamStores({
    store: options.redisUrl,
    ...(options.outputs ? { outputs: options.outputs } : {}),
    retentionDays: 1,
    log: () => undefined,
  });
  cleanups.push(() => stores.close());
  expect(await stores.ready(5_000)).toBe(true);
  const running = await startReplicaOn(cleanups, options.upstreamUrl, stores, {
    keys: stores.keys,
    ...(options.search ? { ownerOutputs: stores.ownerOutputs } : {}),
    ...(options.providerKeys ? { providerKeys: options.providerKeys } : {}),
  });
  return { stores, running };
}

/**
 * A team replica on in-memory stores, in front of a fake Gemini upstream that answers "ok", with
 * the admin key and a cookie secret; `team` replaces parts (keys, provider keys, an outputs store
 * that holds reads). `upstream`: another answer, and the fake as every front's upstream (OpenAI's,
 * Gemini's, Anthropic's). What it starts is taken down by `cleanups`.
 */
export async function startMemoryTeamReplica(
  cleanups: Array<() => Promise<void>>,
  team: (stores: MemoryTeamStores) => Partial<TeamParts> = () => ({}),
  upstream?: { answer: UpstreamResponder; allFronts: true },
) {
  const fake = await startFakeUpstream(upstream?.answer ?? (() => geminiAnswer([{ text: 'ok' }])));
  cleanups.push(() => fake.close());
  const stores = memoryTeamStores();
  const running = await startReplicaOn(
    cleanups,
    fake.url,
    stores,
    team(stores),
    upstream?.allFronts ?? false,
  );
  return { running, upstream: fake, stores };
}
