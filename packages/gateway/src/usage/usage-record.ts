/**
 * One forwarded model request, as `/api/sessions` and the dashboard read it: the provider's real
 * usage next to toolmask's estimates of what masking kept out of the prompt.
 */
import type { ProtocolKind } from '../protocols/protocol.js';

export type ClientKind =
  'gemini-cli' | 'qwen-code' | 'claude-code' | 'codex' | 'opencode' | 'other';

/** Every client kind. */
export const CLIENT_KINDS: readonly ClientKind[] = [
  'gemini-cli',
  'qwen-code',
  'claude-code',
  'codex',
  'opencode',
  'other',
];

/**
 * Where a request was seen: through one of the gateway's protocols, or `in-process` (read from the
 * telemetry outfile of an in-process installation by `toolmask dashboard`).
 */
export type RequestSource = ProtocolKind | 'in-process';

export interface UsageRecord {
  /** Epoch ms when the request arrived. */
  at: number;
  conversationId: string;
  client: ClientKind;
  front: RequestSource;
  model: string;
  /** HTTP status the upstream answered (0 when it could not be reached, or the client left first). */
  status: number;
  /** The upstream's origin, when it could not be reached (status 0). */
  unreachable?: string;
  /** The client went away before the answer ended (after the request went upstream). */
  aborted?: true;
  /** The upstream's own error message, when it answered 4xx or 5xx (bounded: failure-reason.ts). */
  error?: string;
  /** From the provider's usage report; undefined when it sent none. */
  promptTokens?: number;
  cachedTokens?: number;
  outputTokens?: number;
  /**
   * Prompt tokens the provider wrote to its cache for this request, when it reports them apart
   * (Anthropic's `cache_creation_input_tokens`, billed at a premium); part of `promptTokens`, like
   * `cachedTokens`. Absent for providers with no separate write figure (Gemini, OpenAI).
   */
  cacheWriteTokens?: number;
  /**
   * What the prompt would have been without masking, as the provider would have reported it
   * (usage/net-billing.ts): prompt tokens, cache reads and writes; absent when the provider
   * reported no prompt tokens, or the body could not be measured.
   */
  unmaskedPromptTokens?: number;
  unmaskedCachedTokens?: number;
  unmaskedCacheWriteTokens?: number;
  /**
   * The prompt's tokens as the conversation's own calibration predicted them before the provider's
   * report (its tokens per character so far, times the characters sent): how far the measured
   * rate can be trusted. Absent on a conversation's first request with usage.
   */
  estimatedPromptTokens?: number;
  /** Masked outputs in the request as sent (earlier decisions re-applied plus new ones). */
  maskedOutputs: number;
  /** Of those, masked by this request's pass. */
  newlyMasked: number;
  /** Estimated tokens the masked outputs in this request would have cost whole, minus their snippets. */
  tokensKeptOut: number;
  /** Bytes written to disk by this request's pass. */
  bytesOffloaded: number;
  /** Outputs the pass should have masked but left whole (write errors and the like). */
  failures: number;
  /** Why the pass masked, when it did: threshold, cold_cache, oversized. */
  trigger?: string;
  /** Whether the pass was told the prompt cache is most likely cold. */
  cacheLikelyCold: boolean;
  /** Milliseconds the gateway added before forwarding (parse, pass, serialize); in-process, the pass's. */
  gatewayMs: number;
  /**
   * A side request: a one-shot structured call of the client beside its conversation (gemini-cli's
   * model router and next-speaker check, qwen-code's `respond_in_schema` checks, Claude Code's and
   * Codex's session titles, OpenCode's title call: side-request.ts). The dashboard
   * folds it into the session it belongs to (sessions.ts); nothing else reads it.
   */
  side?: true;
  /**
   * Who the request belongs to on a team gateway: `key:<first 32 hex of the SHA-256 of the provider
   * key>` or `user:<virtual key name>` (server/owners.ts); absent on a person's own gateway.
   */
  owner?: string;
  /** A digest of the request's session signal (the launcher's session header, or the body's), when it had one. */
  session?: string;
  /**
   * On a conversation's first request: the person's first prompt and the working folder the body
   * names (request-facts.ts, bounded), which the dashboard names the session by.
   */
  prompt?: string;
  folder?: string;
}

/**
 * The client from its user agent, as each binary sends it (checked against the real ones, see
 * usage-record.test.ts): `GeminiCLI-tui/0.61.0/<model> (…)`, `QwenCode/0.24.4 (…)`,
 * `claude-cli/2.1.328 (external, cli)` (`sdk-cli` headless), `codex_exec/0.169.0 (…)` headless and
 * `codex-tui/0.169.0 (…)` interactive (the originator, which other Codex front ends name
 * `codex_<name>`, comes first), `opencode/1.18.33 ai-sdk/provider-utils/… runtime/bun/…`.
 */
const CLIENTS: ReadonlyArray<readonly [RegExp, ClientKind]> = [
  [/^GeminiCLI/i, 'gemini-cli'],
  [/^QwenCode/i, 'qwen-code'],
  [/^claude-cli\//i, 'claude-code'],
  [/^codex[_-]/i, 'codex'],
  [/^opencode\//i, 'opencode'],
];

export function clientOf(userAgent: string | undefined): ClientKind {
  if (!userAgent) return 'other';
  return CLIENTS.find(([pattern]) => pattern.test(userAgent))?.[1] ?? 'other';
}
