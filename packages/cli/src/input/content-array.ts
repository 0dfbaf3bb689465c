/**
 * Checks that a parsed JSON value is a `Content[]` as gemini-cli keeps its chat history:
 * `{ role: 'user' | 'model', parts: Part[] }` entries. Returns what is wrong, or undefined.
 */
import type { Content } from '../replay/types.js';
import { isPlainObject } from '@toolmask/core/utils';

export function describeContentArrayProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return 'expected a JSON array of Content objects';
  if (value.length === 0) return 'the array is empty: nothing to replay';
  for (const [index, content] of value.entries()) {
    if (!isPlainObject(content)) return `item ${index} is not an object`;
    if (content['role'] !== 'user' && content['role'] !== 'model') {
      return `item ${index}: role must be "user" or "model", got ${JSON.stringify(content['role'])}`;
    }
    const parts = content['parts'];
    if (!Array.isArray(parts)) return `item ${index}: parts must be an array`;
    for (const [partIndex, part] of parts.entries()) {
      if (!isPlainObject(part)) return `item ${index}, part ${partIndex} is not an object`;
    }
  }
  return undefined;
}

export function isContentArray(value: unknown): value is Content[] {
  return describeContentArrayProblem(value) === undefined;
}
