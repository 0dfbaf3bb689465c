/**
 * A single person's gateway: its state in its own folder (or the stores it was given), which only
 * it writes, so a conversation has nobody to agree with (`LOCAL_SYNC`); one person, whose access
 * secret or auth token opens what reads state (server/local-tenancy.ts); outputs read back from
 * the folder's own disk.
 */
import { LOCAL_SYNC } from '../conversation/conversation-sync.js';
import { ACCESS_SECRET_SIGN_IN } from '../dashboard/sign-in-pages.js';
import type { GatewayOptions } from '../gateway-options.js';
import { localTenancy } from '../server/local-tenancy.js';
import { diskReadBack, diskSearchBack } from '../server/mcp-endpoint.js';
import { openGivenStores, type Wiring, type WiringBasics } from './wiring.js';

export function localWiring(options: GatewayOptions, basics: WiringBasics): Wiring {
  const { stateDir } = basics;
  return {
    stores: openGivenStores(options, basics),
    outputsDir: stateDir,
    sync: LOCAL_SYNC,
    tenancy: localTenancy({
      accessSecret: basics.accessSecret,
      ...(options.authToken ? { authToken: options.authToken } : {}),
    }),
    // An MCP call does not name its conversation: every session folder of this gateway is open.
    readBack: diskReadBack({ projectTempDir: stateDir, sessionId: '', allowOtherSessions: true }),
    searchBack: diskSearchBack({
      projectTempDir: stateDir,
      sessionId: '',
      allowOtherSessions: true,
    }),
    signInPage: ACCESS_SECRET_SIGN_IN,
    sharedOutputs: [],
  };
}
