/**
 * A single person's gateway: its state in its own folder (or the stores it was given), which only
 * it writes, so a conversation has nobody to agree with (`LOCAL_SYNC`); one person, whose access
 * secret or auth token opens what reads state (server/local-tenancy.ts); outputs read back from
 * the folder's own disk. Its output writes are queued off the request path (the client's next
 * request carries every output again: state/outputs/queued-output-store.ts); a read-back writes
 * the queue first.
 */
import { LOCAL_SYNC } from '../conversation/conversation-sync.js';
import { ACCESS_SECRET_SIGN_IN } from '../dashboard/sign-in-pages.js';
import type { GatewayOptions } from '../gateway-options.js';
import { localTenancy } from '../server/local-tenancy.js';
import { diskReadBack, diskSearchBack } from '../server/mcp-endpoint.js';
import { queuedOutputStore } from '../state/outputs/queued-output-store.js';
import { openGivenStores, type Wiring, type WiringBasics } from './wiring.js';

export function localWiring(options: GatewayOptions, basics: WiringBasics): Wiring {
  const { stateDir } = basics;
  const stores = openGivenStores(options, basics);
  const queueBytes = options._internal?.outputQueueBytes;
  const queuedOutputs = queuedOutputStore(stores.outputs, {
    ...(queueBytes !== undefined ? { maxBytes: queueBytes } : {}),
    onFailure: (filePath, error) => {
      basics.recordStoreFailure('outputs', 'queuedSave');
      basics.log(
        `[toolmask gateway] cannot write ${filePath} (written again from the next request that carries it): ${error instanceof Error ? error.message : String(error)}`,
      );
    },
  });
  // An MCP call does not name its conversation: every session folder of this gateway is open.
  // Claude Code's persisted outputs too, when the gateway was given its folder.
  const everySession = {
    projectTempDir: stateDir,
    sessionId: '',
    allowOtherSessions: true,
    ...(options.hostOutputRoots ? { hostOutputRoots: options.hostOutputRoots } : {}),
  };
  const readFromDisk = diskReadBack(everySession);
  const searchOnDisk = diskSearchBack(everySession);
  return {
    stores: { ...stores, outputs: queuedOutputs },
    queuedOutputs,
    outputsDir: stateDir,
    sync: LOCAL_SYNC,
    tenancy: localTenancy({
      accessSecret: basics.accessSecret,
      ...(options.authToken ? { authToken: options.authToken } : {}),
    }),
    // Outputs still queued are written first, then read or searched like any other.
    readBack: async (params, principal) => {
      await queuedOutputs.flush();
      return readFromDisk(params, principal);
    },
    searchBack: async (params, principal) => {
      await queuedOutputs.flush();
      return searchOnDisk(params, principal);
    },
    signInPage: ACCESS_SECRET_SIGN_IN,
    sharedOutputs: [],
  };
}
