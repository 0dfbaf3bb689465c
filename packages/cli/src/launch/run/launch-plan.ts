/**
 * What a client's launch gives the runner (launch-client.ts), whichever client it is: the plan
 * made before any gateway starts (where the client's requests go, and how to set the client up),
 * and the client set up for one run (its environment and arguments, the banner and notes said
 * before it starts, and what undoes the run's own files). The banner reads the same for every
 * client: `toolmask: <client> (<detail>) → <where its requests go> through the gateway at <url>;
 * read-back over MCP; dashboard <link>`.
 */
import type { UpstreamUrls } from '@toolmask/gateway';
import type { Environment } from '../environment.js';
import { dashboardLink, type GatewayAccess } from '../gateway-access.js';

/** What a launch reads: the person's environment, folder, and the command line. */
export interface LaunchRequest {
  env: Environment;
  cwd: string;
  /** The client's arguments as the person gave them. */
  args: readonly string[];
  /** toolmask's own options of the launch command (the shared ones and the client's). */
  options: Readonly<Record<string, unknown>>;
}

/** The client set up against the gateway for one run. */
export interface ClientSetup {
  env: Environment;
  /** The client's arguments, when the setup changed them; default the person's own. */
  args?: readonly string[];
  /** One line for the person before the client starts (`launchBanner`). */
  summary: string;
  /** More lines for the person before the client starts (notes on the client's settings). */
  notes?: readonly string[];
  /** Undoes what the setup made for this run (overlays, layers); returns warnings. */
  cleanup(): Promise<string[]>;
}

/** A run's gateway, its session id, and the state folder it keeps its files in. */
export interface RunContext {
  gateway: GatewayAccess;
  sessionId: string;
  stateDir: string;
}

/** A launch planned before any gateway starts (the planning may refuse: a LaunchError). */
export interface PlannedLaunch {
  /** The person's own upstreams: where the gateway sends the client's requests. */
  upstreams: Partial<UpstreamUrls>;
  /** Sets the client up against the run's gateway. */
  prepare(run: RunContext): Promise<ClientSetup>;
}

/** The line said before the client starts: where its requests go, and through which gateway. */
export function launchBanner(
  client: string,
  gateway: GatewayAccess,
  destination: string,
  detail?: string,
): string {
  return `toolmask: ${client}${detail ? ` (${detail})` : ''} → ${destination} through the gateway at ${gateway.url}; read-back over MCP; dashboard ${dashboardLink(gateway)}`;
}
