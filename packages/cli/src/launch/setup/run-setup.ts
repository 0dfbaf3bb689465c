/**
 * `toolmask setup <client> [--undo]` for any client: the client's plan (its `setup.ts`, given as
 * `plan`) made against the gateway and carried out by the one engine (apply-plan.ts), or taken
 * back (undo-plan.ts). The access secret is the state folder's (made when it has none, at the
 * plan's first ask), the one the gateway of that folder requires on `/mcp`.
 */
import { loadAccessSecret, type UpstreamUrls } from '@toolmask/gateway/launch';
import type { Environment } from '../environment.js';
import { dashboardLink, type GatewayAccess } from '../gateway-access.js';
import { applyClientPlan } from './apply-plan.js';
import type { SetupContext } from './setup-context.js';
import type { ClientPlan } from './setup-plan.js';
import { refuseWhenSetUp } from './setup-record.js';
import { undoClientPlan, type UndoReport } from './undo-plan.js';

export type { UndoReport } from './undo-plan.js';

/** How a client plans its setup (each client's `setup.ts`). */
export type SetupPlanner = (context: SetupContext) => Promise<ClientPlan>;

export async function applyClientSetup(options: {
  /** The client's name: its record is `<state>/setup-<client>.json`. */
  client: string;
  plan: SetupPlanner;
  gatewayUrl: string;
  stateDir: string;
  env: Readonly<Environment>;
  /** The upstreams of the gateway at `gatewayUrl`, when known (the running one's gateway.json). */
  gatewayUpstreams?: Partial<UpstreamUrls>;
  /** The pid of that gateway, when known (the same file). */
  gatewayPid?: number;
  /** What the caller found at `gatewayUrl`, said after the changes. */
  gatewayLines?: readonly string[];
  /** The folder setup runs in (SetupContext `cwd`). */
  cwd?: string;
}): Promise<{ lines: string[] }> {
  const { client, gatewayUrl, stateDir } = options;
  await refuseWhenSetUp(stateDir, client);
  let access: Promise<GatewayAccess> | undefined;
  const gateway = () =>
    (access ??= loadAccessSecret(stateDir).then((accessSecret) => ({
      url: gatewayUrl,
      accessSecret,
    })));
  const plan = await options.plan({
    env: options.env,
    gatewayUrl,
    stateDir,
    gateway,
    ...(options.gatewayUpstreams ? { gatewayUpstreams: options.gatewayUpstreams } : {}),
    ...(options.gatewayPid !== undefined ? { gatewayPid: options.gatewayPid } : {}),
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
  });
  const lines = await applyClientPlan({ client, stateDir, plan });
  lines.push(
    ...(options.gatewayLines ?? [
      `Now keep a gateway running at ${gatewayUrl} (\`toolmask gateway\`; docs/gateway.md shows a systemd user service).`,
    ]),
    `Its dashboard, for you: ${dashboardLink(await gateway())} (the read-back tool's settings carry the same secret).`,
    ...(plan.closing ?? []),
  );
  return { lines };
}

/** What `--undo` did; `failures` names each file it could not put back, and why. */
export async function undoClientSetup(options: {
  client: string;
  stateDir: string;
}): Promise<UndoReport> {
  return undoClientPlan(options);
}
