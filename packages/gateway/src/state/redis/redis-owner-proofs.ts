/**
 * Which owners of a team gateway the provider has accepted (team/owner-ledger.ts): one key per
 * proven owner, written only after a 2xx answer to one of their requests, so a request that proves
 * no identity writes nothing. Key names after the client's prefix:
 *
 *   {proofs}:owner:<owner>   "1", expiring `PROOF_TTL_SECONDS` after the last proof
 *
 * Every replica reads them, so an owner proven on one replica is proven on all.
 */
import type { Redis } from 'ioredis';

/** A day: an owner who sends nothing for a day proves themselves again. */
export const PROOF_TTL_SECONDS = 24 * 60 * 60;

const proofKey = (owner: string) => `{proofs}:owner:${owner}`;

export interface RedisOwnerProofs {
  has(owner: string): Promise<boolean>;
  prove(owner: string): Promise<void>;
  forget(owner: string): Promise<void>;
}

export function createRedisOwnerProofs(client: Redis): RedisOwnerProofs {
  return {
    has: async (owner) => (await client.exists(proofKey(owner))) === 1,
    async prove(owner) {
      await client.set(proofKey(owner), '1', 'EX', PROOF_TTL_SECONDS);
    },
    async forget(owner) {
      await client.del(proofKey(owner));
    },
  };
}
