/**
 * The body codec of a protocol whose conversation is one array at the top of the body, each
 * element one `Content` for the masking core, tool outputs matched to their calls by id: the
 * Anthropic Messages API (`messages`) and the OpenAI Responses API (`input`). Each protocol gives
 * the array's key and its element conversions; the reading, the description of what is outside
 * the array, and the writing back are this one implementation. The conversation's head (what its
 * key is made of, with the session) is its first element.
 *
 * Written back, only the elements whose tool outputs the pass masked are serialized again (the
 * protocol's `withMasked` changes only those outputs); every other element is its own bytes (the
 * body layer copies them), and everything outside the array is copied as it came.
 */
import type { Content } from '@toolmask/core';
import { isPlainObject } from '@toolmask/core/utils';
import type { BodyCodec, BodyDescription, WholeBody } from '../body/body-codec.js';

/** Tool names by call id, learnt from the elements read so far. */
export type ToolNames = Map<string, string>;

/** What one such protocol says about its array and its elements. */
export interface MessageArrayShape {
  /** The key of the conversation array at the top of a body (`messages`, `input`). */
  key: string;
  /** The session id in a raw body (for the conversation key), if it carries one. */
  session(raw: Buffer): Promise<string | undefined>;
  /** The read-back tool's name: the one `tools` declares, else the client's own spelling. */
  readToolName(tools: unknown): string;
  /** Learns the tool names of the calls an element makes (a call comes before its output). */
  learnToolNames(element: unknown, names: ToolNames): void;
  /** An element as a Content; `unmaskable`: its tool outputs left as they came. */
  toContent(element: unknown, names: ToolNames): { content: Content; unmaskable: number };
  /** The element with the masked outputs of `sent` in place of its own. */
  withMasked(original: unknown, sent: Content): unknown;
}

export function messageArrayCodec(shape: MessageArrayShape): BodyCodec {
  const describe = (body: unknown, routeModel: string): Required<BodyDescription> => {
    const outside = isPlainObject(body) ? body : {};
    return {
      model: typeof outside['model'] === 'string' ? outside['model'] : routeModel,
      readToolName: shape.readToolName(outside['tools']),
    };
  };

  /** Elements as Contents, in order, tool names learnt from the calls as they come. */
  const toContents = (elements: readonly unknown[], names: ToolNames) => {
    const contents: Content[] = [];
    const unmaskable: number[] = [];
    for (const element of elements) {
      shape.learnToolNames(element, names);
      const converted = shape.toContent(element, names);
      contents.push(converted.content);
      unmaskable.push(converted.unmaskable);
    }
    return { contents, unmaskable };
  };

  const readWhole = (body: unknown, routeModel: string): WholeBody | undefined => {
    if (!isPlainObject(body) || !Array.isArray(body[shape.key])) return undefined;
    const elements = body[shape.key] as unknown[];
    if (elements.length === 0) return undefined;
    const converted = toContents(elements, new Map());
    return {
      ...describe(body, routeModel),
      contents: converted.contents,
      unmaskable: converted.unmaskable.reduce((sum, count) => sum + count, 0),
      // One element, as its bytes are in the incremental reader's head: the same key either way.
      head: elements[0],
      write(sent, changed) {
        for (const index of changed) {
          elements[index] = shape.withMasked(elements[index], sent[index] as Content);
        }
        return JSON.stringify(body);
      },
    };
  };

  return {
    arrayPath: [shape.key],
    headElements: 1,
    session: shape.session,
    createState: (): ToolNames => new Map(),
    toContents: (elements, state) => toContents(elements, state as ToolNames),
    toElement: (sent, original) => shape.withMasked(original, sent),
    describe,
    readWhole,
  };
}
