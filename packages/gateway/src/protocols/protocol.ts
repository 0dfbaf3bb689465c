/**
 * A protocol adapter: how one API's requests carry a conversation, so the gateway can hand it to
 * the one masking core as `Content[]` and write the masked result back into the same shape, and
 * how that API reports usage and errors. Each protocol is one folder beside this file with the
 * same five files (and any of its own, such as gemini's `client-masking.ts`):
 *
 * - `codec.ts`: the conversation array of a request body (a `BodyCodec`, body/body-codec.ts),
 *   element by element for the incremental reader and whole for a body that reader cannot read;
 * - `usage.ts`: the usage report in one answer event;
 * - `errors.ts`: an error body in the protocol's style;
 * - `routes.ts`: which request paths are this protocol's, and what the gateway does with each;
 * - `index.ts`: the `Protocol` object(s) that join them.
 *
 * protocols.ts lists them; model-routes.ts matches a request to one. Everything else in a body is
 * left as it came: only the tool outputs the pass changed are replaced.
 */
import type { CacheEconomics } from '@toolmask/core';
import type { BodyCodec } from '../body/body-codec.js';
import type { WireErrorCode } from '../errors.js';

/** Which protocol a model request came through. */
export type ProtocolKind =
  'gemini-api' | 'vertex' | 'code-assist' | 'openai' | 'openai-responses' | 'anthropic';

/** The upstreams a request can go to (upstream/upstreams.ts has their URLs). */
export type UpstreamName = 'gemini' | 'vertex' | 'codeAssist' | 'openai' | 'anthropic';

/** What the gateway does with a request besides forwarding it. */
export type Action = 'mask' | 'countTokens' | 'listExperiments' | 'forward';

/** A model request matched to its protocol (model-routes.ts). */
export interface ModelRoute {
  upstream: UpstreamName;
  protocol: ProtocolKind;
  /** The path to request upstream (prefix removed), with the query string. */
  upstreamPath: string;
  action: Action;
  model: string;
  /** Vertex: the location in the path, which picks the regional endpoint. */
  location?: string;
  /** OpenAI: a named upstream (`/openai/~<name>/...`). */
  openaiRoute?: string;
}

/** A protocol's paths: what one matches, without the launchers' prefix (`/gemini`, `/openai`). */
export interface ProtocolRoute {
  upstream: UpstreamName;
  /**
   * The protocol of the requests it matches, when it is not its upstream's own (`PROTOCOL_OF`):
   * the Responses API shares the `openai` upstream with chat completions.
   */
  protocol?: ProtocolKind;
  /** The route for `pathname` when it is this one's. */
  match(pathname: string): Pick<ModelRoute, 'action' | 'model' | 'location'> | undefined;
}

export interface UsageReport {
  promptTokens?: number;
  cachedTokens?: number;
  outputTokens?: number;
  /** Prompt tokens written to the provider's cache (Anthropic's `cache_creation_input_tokens`). */
  cacheWriteTokens?: number;
}

export interface Protocol {
  kind: ProtocolKind;
  codec: BodyCodec;
  /** The usage report in one parsed answer event or body, if it holds one. */
  usage(event: unknown): UsageReport | undefined;
  /** A JSON error body in this protocol's style. */
  errorBody(status: number, code: WireErrorCode, message: string): string;
  /**
   * Its provider's prompt-cache economics (core's `CACHE_ECONOMICS`): what a cache write and a
   * read cost, and the idle gap after which the cache is cold. The pass weighs a cache break at
   * these prices, and the conversation's idle clock uses that gap.
   */
  cache: Readonly<CacheEconomics>;
  /**
   * A header its clients send the session id in, read before the body's own (`codec.session`),
   * which costs a walk over the body when the id comes after the conversation.
   */
  sessionHeader?: string;
  /**
   * Whether a body as it came is a client's one-shot structured call beside its conversation (a
   * side request: side-requests.ts), for the usage record.
   */
  isSideRequest(raw: Buffer): Promise<boolean>;
  /**
   * The rewrite of the answer to a request of `action` that keeps the client's own masking off
   * (gemini's Code Assist `listExperiments`: gemini/client-masking.ts), when it has one.
   */
  clientMaskingOff(action: Action): AnswerRewrite | undefined;
}

/** Rewrites a JSON answer before it goes to the client (upstream/forward.ts `rewriteJson`). */
export type AnswerRewrite = (answer: unknown) => unknown;
