/**
 * The steps of reading a body's elements that keep the event loop free (incremental-body.ts):
 * hashing, parsing and converting them a stretch at a time, and leaving unparsed what is too heavy
 * to parse at once.
 */
import { createHash, type Hash } from 'node:crypto';
import type { Content } from '@toolmask/core';
import { digestOf, eventLoopPauser, type EventLoopPauser } from '@toolmask/core/utils';
import type { BodyCodec, BodyDescription } from './body-codec.js';
import { checkJson } from './json-check.js';
import { findArray, scanElements, stringAt, weighJson } from './json-layout.js';
import { roundTripsExactly } from './json-safety.js';

/**
 * The most values (about: see json-layout.ts's weight) an element may hold and still be parsed
 * at once. Parsing 100,000 values takes a few milliseconds, but each later step of the pass over
 * them runs at once too (the token estimate, the saved output's pretty JSON, its preview), and
 * takes 10 to 50 ms when the heap is large. A client's real entries hold a few hundred values, or
 * some thousands for a turn of many parallel calls.
 */
export const MAX_ELEMENT_VALUES = 100_000;

/** What stands for an element too heavy to parse (the pass sees an entry with nothing in it). */
export const HEAVY = Symbol('heavy element');
export const heavyPlaceholder = (): Content => ({ role: 'user', parts: [] });

/** Elements converted by the codec in one stretch, between two checks for a turn of the loop. */
const CONVERT_BATCH = 512;

/** Bytes hashed in one stretch. */
const HASH_SLICE_BYTES = 4 << 20;

/**
 * Bytes of elements parsed between two looks at the clock (a look costs about what parsing a
 * small element does; 64 KiB parse in well under a millisecond).
 */
const PARSE_CHECK_BYTES = 64 * 1024;

/** The conversation's head in `raw` (the bytes of its first elements), for its key. */
export async function headBytes(
  codec: BodyCodec,
  raw: Buffer,
  pause: EventLoopPauser = eventLoopPauser(),
): Promise<Buffer | undefined> {
  const open = await findArray(raw, codec.arrayPath, pause);
  if (open < 0) return undefined;
  const spans = await scanElements(raw, open + 1, pause, codec.headElements);
  const first = spans?.elements[0];
  const last = spans?.elements.at(-1);
  return first && last ? raw.subarray(first[0], last[1]) : undefined;
}

/** `hash` updated with `bytes` a few megabytes at a time, with a turn for the loop between. */
export async function hashInSlices(
  hash: Hash,
  bytes: Buffer,
  pause: EventLoopPauser,
): Promise<Hash> {
  for (let at = 0; at < bytes.length; at += HASH_SLICE_BYTES) {
    hash.update(bytes.subarray(at, Math.min(bytes.length, at + HASH_SLICE_BYTES)));
    if (at + HASH_SLICE_BYTES < bytes.length) await pause();
  }
  return hash;
}

/**
 * Each new element's SHA-256 (its bytes and the separator before it, from `from`), with `hash`,
 * the array's running digest, continued over the same bytes.
 */
export async function digestElements(
  raw: Buffer,
  from: number,
  spans: ReadonlyArray<[number, number]>,
  hash: Hash,
  pause: EventLoopPauser,
): Promise<Buffer[]> {
  let previousEnd = from;
  const digests: Buffer[] = [];
  for (const [, end] of spans) {
    const bytes = raw.subarray(previousEnd, end);
    if (bytes.length <= HASH_SLICE_BYTES) {
      // One slice: hashed at once, in one call (no promise, no Hash object per element: a cold
      // body of 700 to 3,000 elements paid more for those than for the hashing).
      digests.push(digestOf('sha256', bytes, 'buffer'));
      hash.update(bytes);
    } else {
      digests.push((await hashInSlices(createHash('sha256'), bytes, pause)).digest());
      await hashInSlices(hash, bytes, pause);
    }
    previousEnd = end;
    if (pause.due()) await pause();
  }
  return digests;
}

/**
 * The elements at `spans` parsed, one at a time with turns for the loop between; HEAVY for one
 * too heavy to parse at once (checked to be JSON instead). Undefined when one is not JSON, or
 * holds a number JSON cannot carry exactly (the body is then read whole, which says which).
 */
export async function parseElements(
  raw: Buffer,
  spans: {
    elements: ReadonlyArray<[number, number]>;
    weights: readonly number[];
    /** Per element, whether its walk found a number that may not round-trip (else none). */
    inexact?: readonly boolean[];
  },
  pause: EventLoopPauser,
): Promise<unknown[] | undefined> {
  const elements: unknown[] = [];
  let unchecked = 0;
  for (let index = 0; index < spans.elements.length; index++) {
    const [start, end] = spans.elements[index] as [number, number];
    if ((spans.weights[index] as number) > MAX_ELEMENT_VALUES) {
      if (!(await checkJson(raw, start, end, pause)).ok) return undefined;
      elements.push(HEAVY);
      unchecked = PARSE_CHECK_BYTES;
    } else {
      let element: unknown;
      try {
        element = JSON.parse(raw.toString('utf8', start, end));
      } catch {
        return undefined;
      }
      // Walked again only when its scan found a number that may not round-trip.
      if (spans.inexact?.[index] !== false && !roundTripsExactly(element)) return undefined;
      elements.push(element);
      unchecked += end - start;
    }
    if (unchecked >= PARSE_CHECK_BYTES) {
      unchecked = 0;
      if (pause.due()) await pause();
    }
  }
  return elements;
}

/**
 * What a body says outside its conversation (`outside`: the body with that array empty). Too
 * heavy to parse at once, it is checked to be JSON and described by its route and model alone
 * (its declared read-back tool, if any, is the one its conversation declared before). Undefined
 * when it is not JSON.
 */
export async function describeOutside(
  codec: BodyCodec,
  outside: Buffer,
  routeModel: string,
  pause: EventLoopPauser,
): Promise<BodyDescription | undefined> {
  const weight = await weighJson(outside, 0, outside.length, pause);
  if (weight === undefined) return undefined;
  try {
    if (weight <= MAX_ELEMENT_VALUES) {
      return codec.describe(JSON.parse(outside.toString('utf8')), routeModel);
    }
    if (!(await checkJson(outside, 0, outside.length, pause)).ok) return undefined;
    const model = await stringAt(outside, ['model'], pause);
    return codec.describe(model === undefined ? {} : { model }, routeModel);
  } catch {
    return undefined;
  }
}

/** `list` with its items from `keep` on replaced by `items`. */
export function replaceFrom<T>(list: T[], keep: number, items: readonly T[]): void {
  list.length = keep;
  for (const item of items) list.push(item);
}

/** The elements after one ending at `from`: a comma and more elements, or the closing bracket. */
export async function afterElement(raw: Buffer, from: number, pause: EventLoopPauser) {
  let at = from;
  while (
    at < raw.length &&
    (raw[at] === 0x20 || raw[at] === 0x0a || raw[at] === 0x0d || raw[at] === 0x09)
  )
    at++;
  if (raw[at] === 0x5d) {
    return { elements: [] as Array<[number, number]>, weights: [], inexact: [], close: at };
  }
  if (raw[at] !== 0x2c) return undefined;
  return scanElements(raw, at + 1, pause);
}

/**
 * `elements` as Contents, in order, a batch at a time (`state`: the codec's, carried on); an
 * element too heavy to parse is a placeholder, counted as left unmasked.
 */
export async function convertElements(
  codec: BodyCodec,
  elements: readonly unknown[],
  state: unknown,
  pause: EventLoopPauser,
): Promise<{ contents: Content[]; unmaskable: number }> {
  const contents: Content[] = [];
  let unmaskable = 0;
  let batch: unknown[] = [];
  const flush = () => {
    if (batch.length === 0) return;
    const converted = codec.toContents(batch, state);
    for (const content of converted.contents) contents.push(content);
    for (const count of converted.unmaskable) unmaskable += count;
    batch = [];
  };
  for (const element of elements) {
    if (element === HEAVY) {
      flush();
      contents.push(heavyPlaceholder());
      unmaskable++;
    } else {
      batch.push(element);
      if (batch.length < CONVERT_BATCH) continue;
      flush();
    }
    // Between batches, and after an element too heavy to parse (converting is cheap per element).
    if (pause.due()) await pause();
  }
  flush();
  return { contents, unmaskable };
}
