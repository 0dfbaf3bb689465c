/**
 * One replica of a team gateway (docs/team.md): its state in the stores every replica shares, so
 * each pass agrees with the other replicas' decisions (conversation/shared-store-sync.ts); its
 * outputs saved to and read back from the shared output store, under the same root on every
 * replica (a snippet's bytes do not depend on which replica made it); keys name owners, who each
 * see only their own (team/team-tenancy.ts).
 */
import * as path from 'node:path';
import { SHARED_STORE_SYNC } from '../conversation/shared-store-sync.js';
import { TEAM_KEY_SIGN_IN } from '../dashboard/sign-in-pages.js';
import type { GatewayOptions, TeamOptions } from '../gateway-options.js';
import { ConversationOwners } from '../team/conversation-owners.js';
import { OwnerLedger } from '../team/owner-ledger.js';
import { sharedOutputOpener, sharedReadBack } from '../team/shared-read-back.js';
import { TeamKeys } from '../team/team-keys.js';
import { teamTenancy } from '../team/team-tenancy.js';
import { counted, openGivenStores, type Wiring, type WiringBasics } from './wiring.js';

export function teamWiring(
  options: GatewayOptions,
  team: TeamOptions,
  basics: WiringBasics,
): Wiring {
  const outputs = counted(basics, team.outputs, 'outputs');
  const stores = openGivenStores(options, basics);
  const keys = new TeamKeys({
    ...(team.keys ? { keys: counted(basics, team.keys, 'keys') } : {}),
    ...(team.providerKeys ? { providerKeys: team.providerKeys } : {}),
    ...(team.adminKey ? { adminKey: team.adminKey } : {}),
    cookieSecret: team.cookieSecret,
    ...(team.cookieLifetimeMs ? { cookieLifetimeMs: team.cookieLifetimeMs } : {}),
    ...(options._internal?.now ? { now: options._internal.now } : {}),
  });
  const ledger = new OwnerLedger({
    ...(team.ownerBudget ? { budget: team.ownerBudget } : {}),
    ...(team.proofs ? { proofs: team.proofs } : {}),
    onRefusal: basics.recordBudgetRefusal,
  });
  const owners = new ConversationOwners(stores.conversations);
  const tenancy = teamTenancy(keys, { owners, ledger });
  // A replica copies a shared output to its disk to read it (team/shared-read-back.ts).
  const scratchDir = path.join(basics.stateDir, 'read-back');
  return {
    stores: { ...stores, outputs },
    outputsDir: outputs.root,
    sync: SHARED_STORE_SYNC,
    tenancy,
    readBack: sharedReadBack({ outputs, tenancy, scratchDir }),
    signInPage: TEAM_KEY_SIGN_IN,
    openOutput: sharedOutputOpener(outputs, scratchDir),
    sharedOutputs: [outputs],
  };
}
