/**
 * What `toolmask setup claude|codex|opencode` knows when it plans a client's changes: the
 * environment the client runs in (where its files are), the gateway (its address and access
 * secret), and, when the address is the gateway running for the state folder, the upstreams it was
 * started with (its `gateway.json`): the person's own base URL must be one of them.
 */
import type { UpstreamUrls } from '@toolmask/gateway';
import type { GatewayAccess } from './gateway-access.js';

export interface SetupContext {
  env: Readonly<Record<string, string | undefined>>;
  gateway: GatewayAccess;
  /** The upstreams of the gateway at `gateway.url`; undefined when they are not known. */
  gatewayUpstreams?: Partial<UpstreamUrls>;
}

/**
 * The gateway route for an OpenAI-compatible base URL: `<gateway>/openai/v1` for one that ends in
 * `/v1` (the gateway drops the repeated `/v1`), else `<gateway>/openai`, so that the client's
 * `<base>/responses` or `<base>/chat/completions` reaches `<upstream>/…` unchanged.
 */
export function openaiRoute(gatewayUrl: string, upstream: string): string {
  return /\/v1\/*$/.test(upstream) ? `${gatewayUrl}/openai/v1` : `${gatewayUrl}/openai`;
}

/** The lines about the gateway's OpenAI upstream, or a refusal when it is known to differ. */
export function checkOpenaiUpstream(
  context: SetupContext,
  client: string,
  upstream: string,
  where: string,
): { refusal?: string; note?: string } {
  const trim = (url: string) => url.replace(/\/+$/, '');
  const command = `toolmask gateway --openai-upstream ${upstream}`;
  if (!context.gatewayUpstreams) {
    return {
      note: `${client} sent its requests to ${upstream} (${where}): start the gateway with \`${command}\`, so that they still go there.`,
    };
  }
  const gatewaySends = context.gatewayUpstreams.openai;
  if (gatewaySends !== undefined && trim(gatewaySends) === trim(upstream)) return {};
  return {
    refusal: `${client} sends its requests to ${upstream} (${where}), but the gateway at ${context.gateway.url} ${gatewaySends ? `sends the OpenAI API to ${gatewaySends}` : 'has no OpenAI upstream'}; nothing was changed. Restart that gateway with \`${command}\` and run setup again`,
  };
}
