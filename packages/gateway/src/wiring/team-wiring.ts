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
import { ReadBackSlots } from '../team/read-back-slots.js';
import { sharedOutputOpener, sharedReadBack } from '../team/shared-read-back.js';
import { sharedSearchBack } from '../team/shared-search-back.js';
import type { OwnerOutputIndex, SharedOutputStore } from '../state/stores.js';
import { sessionIdOfFolder } from '@toolmask/core/storage';
import { TeamKeys } from '../team/team-keys.js';
import { teamTenancy } from '../team/team-tenancy.js';
import { counted, openGivenStores, type Wiring, type WiringBasics } from './wiring.js';

export function teamWiring(
  options: GatewayOptions,
  team: TeamOptions,
  basics: WiringBasics,
): Wiring {
  const countedOutputs = counted(basics, team.outputs, 'outputs');
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
  // Each save indexed under its conversation's owner, for their search (issue 32).
  const outputs = team.ownerOutputs
    ? indexedByOwner(countedOutputs, owners, team.ownerOutputs)
    : countedOutputs;
  const slots = new ReadBackSlots();
  const tenancy = teamTenancy(keys, { owners, ledger });
  // A replica copies a shared output to its disk to read it (team/shared-read-back.ts).
  const scratchDir = path.join(basics.stateDir, 'read-back');
  return {
    stores: { ...stores, outputs },
    outputsDir: outputs.root,
    sync: SHARED_STORE_SYNC,
    tenancy,
    readBack: sharedReadBack({ outputs, tenancy, scratchDir, slots }),
    ...(team.ownerOutputs
      ? {
          searchBack: sharedSearchBack({
            outputs,
            index: team.ownerOutputs,
            owners,
            scratchDir,
            slots,
          }),
        }
      : {}),
    signInPage: TEAM_KEY_SIGN_IN,
    openOutput: sharedOutputOpener(outputs, scratchDir, slots),
    sharedOutputs: [outputs],
  };
}

/**
 * `outputs` with each save added to its owner's index (best effort, after the save: a search
 * misses an output whose index entry failed, a read never does).
 */
function indexedByOwner(
  outputs: SharedOutputStore,
  owners: ConversationOwners,
  index: OwnerOutputIndex,
): SharedOutputStore {
  return {
    root: outputs.root,
    read: (relativePath) => outputs.read(relativePath),
    prune: (beforeMs) => outputs.prune(beforeMs),
    close: () => outputs.close(),
    async save(directory, fileName, text, byteLength) {
      const saved = await outputs.save(directory, fileName, text, byteLength);
      const conversation = sessionIdOfFolder(path.basename(directory));
      const owner = conversation ? owners.knownOwner(conversation) : undefined;
      if (owner) {
        void index
          .add(owner, path.posix.relative(outputs.root, path.posix.join(directory, fileName)))
          .catch(() => undefined);
      }
      return saved;
    },
  };
}
