/**
 * One forwarded model request, as `/api/sessions` and the dashboard read it: the provider's real
 * usage next to toolmask's estimates of what masking kept out of the prompt.
 */
import type { ProtocolKind } from '../protocols/protocol.js';

export type ClientKind = 'gemini-cli' | 'qwen-code' | 'other';

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
  /** HTTP status the upstream answered (0 when it could not be reached). */
  status: number;
  /** From the provider's usage report; undefined when it sent none. */
  promptTokens?: number;
  cachedTokens?: number;
  outputTokens?: number;
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
   * model router and next-speaker check, qwen-code's `respond_in_schema` checks). The dashboard
   * folds it into the session it belongs to (sessions.ts); nothing else reads it.
   */
  side?: true;
  /** A digest of the request's session signal (the launcher's session header, or the body's), when it had one. */
  session?: string;
}

/** The client from its user agent. */
export function clientOf(userAgent: string | undefined): ClientKind {
  if (!userAgent) return 'other';
  if (/^GeminiCLI/i.test(userAgent)) return 'gemini-cli';
  if (/^QwenCode/i.test(userAgent)) return 'qwen-code';
  return 'other';
}
