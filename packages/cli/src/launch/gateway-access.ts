/**
 * What a launcher tells its client about the gateway: where it is, and its access secret, which
 * opens the read-back tool (`/mcp`) and the dashboard (the gateway's server/access.ts). The
 * secret goes into the MCP server's headers of the client's settings, and into the dashboard
 * address printed for the person.
 */

/** Where the gateway is, and the secret that opens its read-back (`/mcp`) and dashboard. */
export interface GatewayAccess {
  url: string;
  accessSecret: string;
}

/** The header a client sends the access secret in (to `/mcp`: an MCP server's `headers`). */
export const ACCESS_HEADER = 'x-toolmask-token';

export function accessHeaders(gateway: GatewayAccess): Record<string, string> {
  return { [ACCESS_HEADER]: gateway.accessSecret };
}

/** The dashboard's address for its owner: opened once, it leaves a cookie in the browser. */
export function dashboardLink(gateway: GatewayAccess): string {
  return `${gateway.url}/?token=${gateway.accessSecret}`;
}

/** A URL as printed for the person: without a user name and password it may carry. */
export { withoutCredentials as shownUrl } from '@toolmask/gateway/launch';
