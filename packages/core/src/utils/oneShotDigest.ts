/**
 * A digest of one piece of data in one call. Node's one-shot `crypto.hash` (20.12 on) skips the
 * `Hash` object that `createHash(...).update(...).digest()` makes: for the many small inputs of a
 * cold request (each element's bytes, each output's JSON, each segment) the object cost about as
 * much as the hashing. The same digest either way; older Nodes take the long way.
 */
import * as crypto from 'node:crypto';

type Algorithm = 'sha1' | 'sha256';

const oneShot = (crypto as { hash?: typeof crypto.hash }).hash;

/** The digest of `data` (a string is hashed as UTF-8) in `encoding`. */
export function digestOf(
  algorithm: Algorithm,
  data: string | Buffer,
  encoding: 'hex' | 'base64',
): string;
export function digestOf(algorithm: Algorithm, data: string | Buffer, encoding: 'buffer'): Buffer;
export function digestOf(
  algorithm: Algorithm,
  data: string | Buffer,
  encoding: 'hex' | 'base64' | 'buffer',
): string | Buffer {
  if (oneShot) return oneShot(algorithm, data, encoding as 'hex');
  const hash = crypto.createHash(algorithm).update(data);
  return encoding === 'buffer' ? hash.digest() : hash.digest(encoding);
}
