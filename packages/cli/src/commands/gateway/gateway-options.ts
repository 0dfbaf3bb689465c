/**
 * The options of `toolmask gateway` as commander hands them over (gateway-command.ts declares
 * them), and the upstreams they name, each checked to be an http:// or https:// URL (bad usage,
 * exit 2, otherwise). Read by run-gateway.ts and, for a team gateway, team-gateway.ts.
 */
import type { UpstreamUrls } from '@toolmask/gateway';
import { usageError } from '../../cli-error.js';

export interface GatewayCommandOptions {
  host: string;
  port: number;
  upstream?: string;
  vertexUpstream?: string;
  codeAssistUpstream?: string;
  openaiUpstream?: string;
  anthropicUpstream?: string;
  stateDir?: string;
  settings?: string;
  authToken?: string;
  otlpEndpoint?: string;
  maxBodyMb: number;
  maxInFlightMb?: number;
  retentionDays: number;
  keepClientMasking?: boolean;
  /** Start even when a gateway already runs for the state folder (already-running.ts). */
  allowSecond?: boolean;
  /** A team gateway (team-gateway.ts). */
  store?: string;
  outputs?: string;
  s3Endpoint?: string;
  providerKeyEnv?: string;
  adminKeyEnv?: string;
  cookieSecretEnv?: string;
  instance?: string;
  publicHost?: string;
  behindTls?: boolean;
}

/** `value` when it is an http:// or https:// URL; bad usage naming `flag` otherwise. */
export function checkUrl(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usageError(
      `${flag} ${JSON.stringify(value)} is not a URL (expected http://... or https://...)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usageError(`${flag} must be an http:// or https:// URL, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function upstreamsFrom(options: GatewayCommandOptions): Partial<UpstreamUrls> {
  const upstreams: Partial<UpstreamUrls> = {};
  const gemini = checkUrl('--upstream', options.upstream);
  const vertex = checkUrl('--vertex-upstream', options.vertexUpstream);
  const codeAssist = checkUrl('--code-assist-upstream', options.codeAssistUpstream);
  const openai = checkUrl('--openai-upstream', options.openaiUpstream);
  if (gemini) upstreams.gemini = gemini;
  if (vertex) upstreams.vertex = vertex;
  if (codeAssist) upstreams.codeAssist = codeAssist;
  if (openai) upstreams.openai = openai;
  const anthropic = checkUrl('--anthropic-upstream', options.anthropicUpstream);
  if (anthropic) upstreams.anthropic = anthropic;
  return upstreams;
}
