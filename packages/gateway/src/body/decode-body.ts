/**
 * The one way a model request's body is decoded: by the conversation's incremental reader when
 * there is one (only what is new since the previous request is parsed: incremental-body.ts), and
 * whole when there is none or it cannot read the body, by the protocol's codec. Either way the
 * result is the same shape, and writes the masked body back the same way.
 *
 * A body the gateway must not rewrite is said so, never thrown: no conversation in it (it goes out
 * as it came), bytes that are not UTF-8 or a number JSON cannot carry exactly (the same, counted
 * as a failure), more values
 * than a parse may hold the event loop for (the same: `heavy`), or no JSON at all (the client gets
 * a 400).
 *
 * Neither way holds the event loop for long: the incremental reader works in stretches, and a
 * body read whole is first weighed (in stretches) when it is large; one too heavy to parse at once
 * is checked to be JSON, in stretches too, and never parsed.
 */
import { isUtf8 } from 'node:buffer';
import type { Content } from '@toolmask/core';
import { eventLoopPauser, type EventLoopPauser } from '@toolmask/core/utils';
import type { BodyCodec, BodyDescription } from './body-codec.js';
import type { IncrementalBody } from './incremental-body.js';
import type { SentBefore } from './incremental-read.js';
import type { SentBody } from './pieced-body.js';
import type { BodySegments } from './prompt-segments.js';
import { checkJson } from './json-check.js';
import { weighJson } from './json-layout.js';
import { roundTripsExactly } from './json-safety.js';

/**
 * A body up to this size is parsed whole at once (it cannot hold more than about 250,000 values:
 * each takes two bytes at least); a larger one is weighed first.
 */
const WHOLE_PARSE_BYTES = 512 * 1024;
/**
 * The most values a body read whole may hold: one parse of 250,000 values takes 10 to 40 ms (a
 * body read whole is a side request or a fallback, and never kept).
 */
const MAX_WHOLE_VALUES = 250_000;

export interface DecodedConversation {
  kind: 'conversation';
  contents: Content[];
  description: BodyDescription;
  /** What identifies the conversation's start, when read whole (its key when its bytes cannot be found). */
  head?: unknown;
  /** Tool outputs the protocol left alone that this body brings (new since the previous one, when incremental). */
  unmaskable: number;
  /**
   * Read by the conversation's incremental reader, which keeps what is sent for an entry in place
   * of the client's version; read whole, the body stays in memory until the next one.
   */
  incremental: boolean;
  /** Its first contents as sent last time, when the reader knows (incremental-read.ts). */
  sentBefore?: SentBefore | undefined;
  /**
   * The body to send, with `sent` in place of its conversation (`changed`: entries that differ;
   * `differs`, when known: the entries that are not the very objects of `contents`).
   */
  write(
    sent: readonly Content[],
    changed: readonly number[],
    differs?: readonly number[],
  ): Promise<Buffer | string>;
  /** The same body as sent, in pieces where that saves a copy (pieced-body.ts); else `write`. */
  send?: (
    sent: readonly Content[],
    changed: readonly number[],
    differs?: readonly number[],
  ) => Promise<SentBody>;
  /** The net figures' segments of the body and of what `write` wrote, when the reader has them. */
  segments?: () => BodySegments | undefined;
  /** The body without its conversation (the array empty), when the reader has it. */
  outside?: () => Buffer;
  /** The reader's work left for after the send (incremental-body.ts `settle`), done. */
  settle?: () => Promise<void>;
}

export type DecodedBody =
  | DecodedConversation
  /** Nothing to mask in it. */
  | { kind: 'no-conversation' }
  /** Not valid UTF-8: decoded, it would not be written back as the same bytes. */
  | { kind: 'not-utf8' }
  /** A number JSON cannot carry exactly (an integer beyond 2^53): masking would change it. */
  | { kind: 'inexact' }
  /** More values than the gateway parses at once (read whole): it goes out as it came. */
  | { kind: 'heavy' }
  | { kind: 'malformed'; message: string };

/** Where a JSON text too heavy to parse fails, in JSON.parse's words (the position in bytes). */
function failureAt(raw: Buffer, position: number): string {
  return position >= raw.length
    ? 'Unexpected end of JSON input'
    : `Unexpected character at byte ${position}`;
}

/** `raw` parsed whole, its conversation found by `codec`. */
export async function decodeWhole(
  codec: BodyCodec,
  raw: Buffer,
  routeModel: string,
  pause: EventLoopPauser = eventLoopPauser(),
): Promise<DecodedBody> {
  if (!isUtf8(raw)) return { kind: 'not-utf8' };
  if (raw.length > WHOLE_PARSE_BYTES) {
    // A byte order mark is no part of the JSON text (RFC 8259 lets a parser ignore it).
    const start = raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf ? 3 : 0;
    const weight = await weighJson(raw, start, raw.length, pause);
    if (weight === undefined || weight > MAX_WHOLE_VALUES) {
      const check = await checkJson(raw, start, raw.length, pause);
      if (check.weight > MAX_WHOLE_VALUES) {
        return check.ok
          ? { kind: 'heavy' }
          : { kind: 'malformed', message: failureAt(raw, check.position) };
      }
      // Light after all: parsed below at once, or failing within what one parse may hold, in
      // JSON.parse's own words.
    }
  }
  let parsed: unknown;
  try {
    const text = raw.toString('utf8');
    parsed = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    return { kind: 'malformed', message: (error as Error).message };
  }
  const whole = codec.readWhole(parsed, routeModel);
  if (!whole) return { kind: 'no-conversation' };
  if (!roundTripsExactly(parsed)) return { kind: 'inexact' };
  return {
    kind: 'conversation',
    contents: whole.contents,
    description: {
      model: whole.model,
      ...(whole.readToolName ? { readToolName: whole.readToolName } : {}),
    },
    head: whole.head,
    unmaskable: whole.unmaskable,
    incremental: false,
    write: async (sent, changed) => (changed.length > 0 ? whole.write(sent, changed) : raw),
  };
}

/**
 * `raw` read by `reader`, or whole when the reader cannot read it (the reader then starts over).
 * The reader checks only the bytes it has not seen to be UTF-8 (incremental-body.ts); a body it
 * refuses is checked whole, and one that is not UTF-8 leaves the reader as it was.
 */
export async function decodeBody(
  reader: IncrementalBody,
  raw: Buffer,
  routeModel: string,
  pause: EventLoopPauser = eventLoopPauser(),
): Promise<DecodedBody> {
  const decoded = await reader.read(raw, routeModel, pause);
  if (!decoded) {
    if (!isUtf8(raw)) return { kind: 'not-utf8' };
    reader.reset();
    return decodeWhole(reader.codec, raw, routeModel, pause);
  }
  return {
    kind: 'conversation',
    contents: decoded.contents,
    description: decoded.description,
    unmaskable: decoded.newUnmaskable,
    incremental: true,
    sentBefore: decoded.sentBefore,
    write: (sent, _changed, differs) => decoded.write(sent, differs),
    send: (sent, _changed, differs) => decoded.send(sent, differs),
    segments: () => decoded.segments(),
    outside: () => decoded.outside(),
    settle: () => decoded.settle(),
  };
}
