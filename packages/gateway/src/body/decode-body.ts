/**
 * The one way a model request's body is decoded: by the conversation's incremental reader when
 * there is one (only what is new since the previous request is parsed: incremental-body.ts), and
 * whole when there is none or it cannot read the body, by the protocol's codec. Either way the
 * result is the same shape, and writes the masked body back the same way.
 *
 * A body the gateway must not rewrite is said so, never thrown: no conversation in it (it goes out
 * as it came), a number JSON cannot carry exactly (the same, counted as a failure), or no JSON at
 * all (the client gets a 400).
 */
import type { Content } from '@toolmask/core';
import type { BodyCodec, BodyDescription } from './body-codec.js';
import type { IncrementalBody } from './incremental-body.js';
import { roundTripsExactly } from './json-safety.js';

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
  /** The body to send, with `sent` in place of its conversation (`changed`: entries that differ). */
  write(sent: readonly Content[], changed: readonly number[]): Buffer | string;
}

export type DecodedBody =
  | DecodedConversation
  /** Nothing to mask in it. */
  | { kind: 'no-conversation' }
  /** A number JSON cannot carry exactly (an integer beyond 2^53): masking would change it. */
  | { kind: 'inexact' }
  | { kind: 'malformed'; message: string };

/** `raw` parsed whole, its conversation found by `codec`. */
export function decodeWhole(codec: BodyCodec, raw: Buffer, routeModel: string): DecodedBody {
  let parsed: unknown;
  try {
    const text = raw.toString('utf8');
    // A byte order mark is no part of the JSON text (RFC 8259 lets a parser ignore it).
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
    write: (sent, changed) => (changed.length > 0 ? whole.write(sent, changed) : raw),
  };
}

/** `raw` read by `reader`, or whole when the reader cannot read it (the reader then starts over). */
export function decodeBody(reader: IncrementalBody, raw: Buffer, routeModel: string): DecodedBody {
  const decoded = reader.read(raw, routeModel);
  if (!decoded) {
    reader.reset();
    return decodeWhole(reader.codec, raw, routeModel);
  }
  return {
    kind: 'conversation',
    contents: decoded.contents,
    description: decoded.description,
    unmaskable: decoded.newUnmaskable,
    incremental: true,
    write: (sent) => decoded.write(sent),
  };
}
