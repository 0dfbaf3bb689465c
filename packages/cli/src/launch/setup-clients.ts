/**
 * `toolmask setup claude|codex|opencode [--undo]`: each client's plan (setup-claude.ts,
 * setup-codex.ts, setup-opencode.ts) made by the same edits and undone the same way
 * (setup-edits.ts). The access secret is the state folder's (made now when it has none), the one
 * the gateway of that folder requires on `/mcp`.
 */
import { loadAccessSecret, type UpstreamUrls } from '@toolmask/gateway';
import { dashboardLink } from './gateway-access.js';
import { planClaudeSetup } from './setup-claude.js';
import { planCodexSetup } from './setup-codex.js';
import type { SetupContext } from './setup-context.js';
import {
  applyClientPlan,
  refuseWhenSetUp,
  undoClientPlan,
  type ClientPlan,
  type UndoReport,
} from './setup-edits.js';
import { planOpencodeSetup } from './setup-opencode.js';

export type SetupClientName = 'claude' | 'codex' | 'opencode';

export const SETUP_CLIENTS: readonly SetupClientName[] = ['claude', 'codex', 'opencode'];

const PLANNERS: Record<SetupClientName, (context: SetupContext) => Promise<ClientPlan>> = {
  claude: planClaudeSetup,
  codex: planCodexSetup,
  opencode: planOpencodeSetup,
};

export async function applyClientSetup(options: {
  client: SetupClientName;
  gatewayUrl: string;
  stateDir: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The upstreams of the gateway at `gatewayUrl`, when known (the running one's gateway.json). */
  gatewayUpstreams?: Partial<UpstreamUrls>;
  /** What the caller found at `gatewayUrl`, said after the changes. */
  gatewayLines?: readonly string[];
}): Promise<{ lines: string[] }> {
  await refuseWhenSetUp(options.stateDir, options.client);
  const gateway = {
    url: options.gatewayUrl,
    accessSecret: await loadAccessSecret(options.stateDir),
  };
  const plan = await PLANNERS[options.client]({
    env: options.env,
    gateway,
    ...(options.gatewayUpstreams ? { gatewayUpstreams: options.gatewayUpstreams } : {}),
  });
  const lines = await applyClientPlan({ client: options.client, stateDir: options.stateDir, plan });
  lines.push(
    ...(options.gatewayLines ?? [
      `Now keep a gateway running at ${options.gatewayUrl} (\`toolmask gateway\`; docs/gateway.md shows a systemd user service).`,
    ]),
    `Its dashboard, for you: ${dashboardLink(gateway)} (the read-back tool's settings carry the same secret).`,
  );
  return { lines };
}

/** What `--undo` did; `failures` names each file it could not put back, and why. */
export async function undoClientSetup(options: {
  client: SetupClientName;
  stateDir: string;
}): Promise<UndoReport> {
  return undoClientPlan(options);
}
