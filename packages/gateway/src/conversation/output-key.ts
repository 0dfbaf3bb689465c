/**
 * What identifies one tool output across the requests of a conversation: the client resends its
 * whole unmasked history every time, as new JSON, so identity is by value: the tool's name, the
 * call id and a digest of the response. Computed once per response object (a WeakMap), and the
 * gateway reuses the objects of unchanged entries between requests, so each output is hashed once.
 */
import { createHash } from 'node:crypto';

interface FunctionResponseLike {
  name?: unknown;
  id?: unknown;
  response?: unknown;
}

const keys = new WeakMap<object, string>();

export function outputKey(functionResponse: FunctionResponseLike): string {
  const response = functionResponse.response;
  if (response !== null && typeof response === 'object') {
    const known = keys.get(response);
    if (known) return known;
  }
  const digest = createHash('sha256')
    .update(JSON.stringify(response) ?? 'undefined', 'utf8')
    .digest('hex')
    .slice(0, 32);
  const name = typeof functionResponse.name === 'string' ? functionResponse.name : '';
  const id = typeof functionResponse.id === 'string' ? functionResponse.id : '';
  const key = `${name}\u0000${id}\u0000${digest}`;
  if (response !== null && typeof response === 'object') keys.set(response, key);
  return key;
}
