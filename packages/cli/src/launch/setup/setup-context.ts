/**
 * What a client's setup plan knows when it is made: the environment the client runs in (where
 * its files are), the gateway's address and the state folder, the gateway's access secret (made
 * at the first ask), and, when the address is the gateway running for the state folder, the
 * upstreams it was started with (its `gateway.json`): the person's own base URL must be one of
 * them. Helpers for the OpenAI-compatible clients' plans (codex, opencode) beside it.
 */
import type { UpstreamUrls } from '@toolmask/gateway';
import { DEFAULT_PORT } from '@toolmask/gateway/defaults';
import type { Environment } from '../environment.js';
import type { GatewayAccess } from '../gateway-access.js';
import { defaultStateDir } from '../state-dir.js';

export interface SetupContext {
  env: Readonly<Environment>;
  /** The gateway's address setup writes. */
  gatewayUrl: string;
  /** toolmask's state folder: the record, the access secret, files of toolmask's own. */
  stateDir: string;
  /**
   * The gateway's address and access secret. The secret is the state folder's, made at the first
   * call when it has none (which writes the folder): a plan asks once the checks that can refuse
   * have passed, or, as claude's, codex's and opencode's always have, first.
   */
  gateway(): Promise<GatewayAccess>;
  /** The upstreams of the gateway at `gatewayUrl`; undefined when they are not known. */
  gatewayUpstreams?: Partial<UpstreamUrls>;
  /** The pid of the gateway at `gatewayUrl`, when it is the one running for the state folder. */
  gatewayPid?: number;
  /** The folder setup runs in: a project's config there may override what setup writes. */
  cwd?: string;
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
  const command = gatewayCommand(context, '--openai-upstream', upstream);
  if (!context.gatewayUpstreams) {
    return {
      note: `${client} sent its requests to ${upstream} (${where}): start the gateway with \`${command}\`, so that they still go there.`,
    };
  }
  const gatewaySends = context.gatewayUpstreams.openai;
  if (gatewaySends !== undefined && trim(gatewaySends) === trim(upstream)) return {};
  return {
    refusal: `${client} sends its requests to ${upstream} (${where}), but the gateway at ${context.gatewayUrl} ${gatewaySends ? `sends the OpenAI API to ${gatewaySends}` : 'has no OpenAI upstream (as `toolmask status` says)'}; nothing was changed. ${restartSteps(context, client, command)}`,
  };
}

/**
 * What to do when the running gateway sends an API elsewhere: started again as it is, the new one
 * would be refused (one gateway per state folder), so it is stopped first (its pid when known).
 */
export function restartSteps(context: SetupContext, client: string, command: string): string {
  const stop =
    context.gatewayPid === undefined ? 'Stop it' : `Stop it (\`kill ${context.gatewayPid}\`)`;
  return `${stop}, start it again with \`${command}\`, then run \`toolmask setup ${client}\` again`;
}

/** A word as a shell reads it: as it is when plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The one command that starts the gateway setup writes the address of, for this state folder,
 * with `flag upstream`: its port and state folder when they are not the defaults.
 */
export function gatewayCommand(context: SetupContext, flag: string, upstream: string): string {
  const words = ['toolmask', 'gateway'];
  let port = String(DEFAULT_PORT);
  try {
    const url = new URL(context.gatewayUrl);
    port = url.port || (url.protocol === 'https:' ? '443' : '80');
  } catch {
    // not a URL: the default port
  }
  if (port !== String(DEFAULT_PORT)) words.push('--port', port);
  if (context.stateDir !== defaultStateDir(context.env))
    words.push('--state-dir', context.stateDir);
  words.push(flag, upstream);
  return words.map(shellWord).join(' ');
}
