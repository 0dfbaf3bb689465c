/**
 * A request body's prompt as segments, for the net figures (net-billing.ts): the body without its
 * conversation array (model, system, tools, settings: one segment), then each element of that
 * array, each as its compact JSON's characters and a digest of it. Parsed whole, so a body over
 * `MAX_SHAPED_BYTES` is not measured (undefined), nor one that is not JSON. The incremental reader
 * gives the same figures without a parse (body/prompt-segments.ts); this is the way for a body it
 * did not read, and what its test compares it with.
 */
import { segmentOf } from '../body/prompt-segments.js';
import type { PromptShape } from './net-billing.js';

/** Parsing and measuring a body holds the event loop: about 20 ms a MiB (bench: event-loop.reliability.test.ts). */
export const MAX_SHAPED_BYTES = 2 * 1024 * 1024;

/** The segments' texts (the body-without-array first), or undefined when `body` has no such array. */
export function segmentsOf(body: unknown, arrayPath: readonly string[]): string[] | undefined {
  if (typeof body !== 'object' || body === null || arrayPath.length === 0) return undefined;
  let parent = body as Record<string, unknown>;
  for (const key of arrayPath.slice(0, -1)) {
    const inner = parent[key];
    if (typeof inner !== 'object' || inner === null) return undefined;
    parent = inner as Record<string, unknown>;
  }
  const last = arrayPath.at(-1)!;
  const entries = parent[last];
  if (!Array.isArray(entries)) return undefined;
  // The array emptied in place for the first segment, then put back: no copy of a large body.
  parent[last] = [];
  try {
    return [JSON.stringify(body), ...entries.map((entry) => JSON.stringify(entry) ?? 'null')];
  } finally {
    parent[last] = entries;
  }
}

/** The shape of a raw body, or undefined when it cannot be measured. */
export function promptShape(
  raw: Buffer | string,
  arrayPath: readonly string[],
): PromptShape | undefined {
  if (Buffer.byteLength(raw) > MAX_SHAPED_BYTES) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch {
    return undefined;
  }
  const segments = segmentsOf(body, arrayPath);
  if (!segments) return undefined;
  const measured = segments.map(segmentOf);
  return {
    digests: measured.map((segment) => segment.digest),
    chars: measured.map((segment) => segment.chars),
  };
}
