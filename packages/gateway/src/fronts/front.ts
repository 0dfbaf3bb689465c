/**
 * A protocol front: how one request shape (the Gemini API, Vertex, Code Assist, OpenAI chat
 * completions) carries a conversation, so the gateway can hand it to the one masking core as
 * `Content[]` and write the masked result back into the same shape. The rest of the body is left
 * as it came: only the tool outputs the pass changed are replaced.
 */
import type { Content } from '@toolmask/core';
import type { FrontKind } from '../usage/usage-record.js';

export interface FrontRequest {
  /** The conversation, oldest first; the last entry is the content being sent. */
  contents: Content[];
  /** What identifies the conversation's start (its first entry, or system and first message). */
  head: unknown;
  model: string;
  /** The read-back tool as this request declares it to the model (`...read_tool_output`), if it does. */
  readToolName?: string;
  /** Tool outputs the front had to leave alone (content of an unexpected kind, an unknown call id). */
  unmaskable?: number;
  /** The body to send, with `sent` in place of the conversation (`changed`: entries that differ). */
  write(sent: readonly Content[], changed: readonly number[]): string;
}

export interface UsageReport {
  promptTokens?: number;
  cachedTokens?: number;
  outputTokens?: number;
}

/** What a body says besides its conversation. */
export interface BodyDescription {
  model: string;
  /** The read-back tool as the request declares it to the model. */
  readToolName?: string;
}

/**
 * How a front's conversation array maps to `Content[]`, element by element, so that a body can be
 * read and written back incrementally (conversation/incremental-body.ts).
 */
export interface ArrayCodec {
  /** Where the conversation array is in a body (`['contents']`, `['request', 'contents']`, `['messages']`). */
  arrayPath: readonly string[];
  /** How many leading elements identify the conversation (its head). */
  headElements: number;
  /**
   * A session id the body carries before its conversation (cheap to read), if any: Code Assist's
   * `user_prompt_id` starts with gemini-cli's session id.
   */
  session?(raw: Buffer): string | undefined;
  /** What converting one element needs from the ones before it (OpenAI: tool names by call id). */
  createState(): unknown;
  /** New elements, in order, as Contents; with the tool outputs left alone in each. */
  toContents(
    elements: readonly unknown[],
    state: unknown,
  ): { contents: Content[]; unmaskable: number[] };
  /** The element to write for a Content the pass changed, given the element it came from. */
  toElement(sent: Content, original: unknown): unknown;
  /** What the body says outside its conversation (parsed with that array empty). */
  describe(outside: unknown, routeModel: string): BodyDescription;
}

export interface Front {
  kind: FrontKind;
  /** The conversation array of a generate request, element by element. */
  codec: ArrayCodec;
  /** The conversation in a parsed body; undefined when there is none to mask. */
  read(body: unknown, model: string): FrontRequest | undefined;
  /** The usage report in one parsed response event or body, if it holds one. */
  usage(event: unknown): UsageReport | undefined;
  /** A JSON error body in this protocol's style. */
  errorBody(status: number, code: string, message: string): string;
}
