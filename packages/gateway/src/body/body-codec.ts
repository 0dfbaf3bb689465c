/**
 * What the body readers need from a protocol: where its conversation array is in a body and how
 * each element maps to a `Content` and back (for the incremental reader, incremental-body.ts), and
 * how to find the conversation in a body parsed whole (decode-body.ts). Each protocol's `codec.ts`
 * implements it (protocols/).
 */
import type { Content } from '@toolmask/core';

/** What a body says besides its conversation. */
export interface BodyDescription {
  model: string;
  /** The read-back tool as the request declares it to the model (`...read_tool_output`), if it does. */
  readToolName?: string;
}

/** A body parsed whole, with its conversation found in it. */
export interface WholeBody extends BodyDescription {
  /** The conversation, oldest first; the last entry is the content being sent. */
  contents: Content[];
  /** What identifies the conversation's start (its first entries), for its key. */
  head: unknown;
  /** Tool outputs the protocol had to leave alone (content of an unexpected kind, an unknown call id). */
  unmaskable: number;
  /** The body to send, with `sent` in place of the conversation (`changed`: entries that differ). */
  write(sent: readonly Content[], changed: readonly number[]): string;
}

/**
 * How a protocol's conversation array maps to `Content[]`: element by element, so that a body can
 * be read and written back incrementally, and whole, for a body read all at once.
 */
export interface BodyCodec {
  /** Where the conversation array is in a body (`['contents']`, `['request', 'contents']`, `['messages']`). */
  arrayPath: readonly string[];
  /** How many leading elements identify the conversation (its head). */
  headElements: number;
  /**
   * A session id the body carries before its conversation (cheap to read, in stretches: a body's
   * other values may be heavy), if any: Code Assist's `user_prompt_id` starts with gemini-cli's
   * session id.
   */
  session?(raw: Buffer): Promise<string | undefined>;
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
  /** The conversation in a body parsed whole; undefined when there is none to mask. */
  readWhole(body: unknown, routeModel: string): WholeBody | undefined;
}
