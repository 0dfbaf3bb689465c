/**
 * `toolmask setup <client>` and its `--undo` as the command runs them (commands/setup/
 * run-setup-command.ts), for the tests of each client's setup: the client's adapter's plan,
 * through the one engine, with the gateway address and state folder given.
 */
import type { UpstreamUrls } from '@toolmask/gateway';
import type { ClientAdapter } from '../launch/clients/client-adapter.js';
import { applyClientSetup, undoClientSetup } from '../launch/setup/run-setup.js';

export function setUpClient(
  client: ClientAdapter,
  options: {
    gatewayUrl: string;
    stateDir: string;
    env: Readonly<Record<string, string | undefined>>;
    gatewayUpstreams?: Partial<UpstreamUrls>;
    cwd?: string;
  },
) {
  return applyClientSetup({ client: client.name, plan: client.setup.plan, ...options });
}

export function undoClient(client: ClientAdapter, stateDir: string) {
  return undoClientSetup({ client: client.name, stateDir });
}
