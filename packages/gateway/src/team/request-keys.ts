/**
 * The key a team gateway's request carries, wherever the client's SDK put it:
 * `x-goog-api-key`, `x-api-key`, `Authorization: Bearer`, or Gemini's `?key=`. Exactly one key in
 * exactly one place (issue 33, finding 5): a key given twice (a header and `?key=`, a header
 * repeated, `A, B` in one header) or two credentials is ambiguous, refused before anything is
 * forwarded, since the provider would take whichever it reads first.
 *
 * Headers are read as they came on the wire (`rawHeaders`), one line at a time: Node keeps only
 * the first of two `Authorization` lines in `headers` and joins other repeated headers, so a
 * second line would be checked by nobody while whatever sits in front of the provider may read
 * it. Any key header given on two lines is ambiguous, whatever the lines hold.
 */
import type { IncomingMessage } from 'node:http';

/** Where a model request's key came from, so a virtual key is replaced where it was. */
export type KeyPlace = 'x-goog-api-key' | 'x-api-key' | 'authorization' | 'query';

export interface FoundKey {
  key: string;
  place: KeyPlace;
}

export type RequestKeys =
  | { kind: 'none' }
  | { kind: 'one'; found: FoundKey }
  /** More than one key, or one that cannot be a single key (a list, spaces in it). */
  | { kind: 'ambiguous' };

const HEADER_PLACES = ['x-goog-api-key', 'x-api-key'] as const;

const KEY_HEADERS: readonly string[] = [...HEADER_PLACES, 'authorization'];

/**
 * Every header line as it came, `[name in lower case, value]`: `rawHeaders`, or (a request made
 * by hand, without them) `headers` with a repeated header's values one per line.
 */
function headerLines(request: IncomingMessage): Array<[string, string]> {
  const lines: Array<[string, string]> = [];
  const raw = request.rawHeaders as string[] | undefined;
  if (raw) {
    for (let index = 0; index + 1 < raw.length; index += 2) {
      lines.push([raw[index]!.toLowerCase(), raw[index + 1]!]);
    }
    return lines;
  }
  for (const [name, value] of Object.entries(request.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      lines.push([name, one]);
    }
  }
  return lines;
}

/** The lines of the key header `name`, each value as it came. */
function headerValues(lines: Array<[string, string]>, name: string): string[] {
  return lines.filter(([lineName]) => lineName === name).map(([, value]) => value);
}

function queryKeys(request: IncomingMessage): string[] {
  const url = request.url ?? '';
  const queryAt = url.indexOf('?');
  return queryAt < 0 ? [] : new URLSearchParams(url.slice(queryAt + 1)).getAll('key');
}

/** Every key the request carries, each where it was (blank values left out). */
function allKeys(lines: Array<[string, string]>, request: IncomingMessage): FoundKey[] {
  const found: FoundKey[] = [];
  for (const place of HEADER_PLACES) {
    for (const value of headerValues(lines, place)) found.push({ key: value.trim(), place });
  }
  for (const value of headerValues(lines, 'authorization')) {
    const bearer = /^Bearer\s+(.+)$/i.exec(value)?.[1];
    if (bearer !== undefined) found.push({ key: bearer.trim(), place: 'authorization' });
  }
  for (const value of queryKeys(request)) found.push({ key: value.trim(), place: 'query' });
  return found.filter((entry) => entry.key !== '');
}

export function requestKeys(request: IncomingMessage): RequestKeys {
  const lines = headerLines(request);
  // A key header on two lines, even one that is no key (`Basic …`) or the same key again.
  for (const name of KEY_HEADERS) {
    if (headerValues(lines, name).length > 1) return { kind: 'ambiguous' };
  }
  const found = allKeys(lines, request);
  const [only] = found;
  if (!only) return { kind: 'none' };
  if (found.length > 1 || /[\s,]/.test(only.key)) return { kind: 'ambiguous' };
  return { kind: 'one', found: only };
}

/**
 * Whether `secret` is one of the words of the request's headers or target (split at spaces,
 * commas, `;`, `&` and `?`; a word `name=value` also as its value), each compared in constant
 * time (`matches`): a key sent in any header, twice, or beside another, is found without timing
 * what it shares with the secret.
 */
export function carriesAnywhere(
  request: IncomingMessage,
  secret: string,
  matches: (candidate: string, secret: string) => boolean,
): boolean {
  if (secret === '') return false;
  let target = request.url ?? '';
  try {
    target = decodeURIComponent(target);
  } catch {
    // Not decodable: searched as it came.
  }
  // Every line as it came: a second `Authorization` line is not in `headers`.
  const values = [target, ...headerLines(request).map(([, value]) => value)];
  let found = false;
  for (const value of values) {
    for (const word of value.split(/[\s,;&?]+/)) {
      const afterName = word.slice(word.indexOf('=') + 1);
      if (matches(word, secret) || matches(afterName, secret)) found = true;
    }
  }
  return found;
}
