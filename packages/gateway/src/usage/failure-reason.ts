/**
 * Why an upstream refused a request, for the dashboard's list of failed requests: the start of its
 * answer is kept as it streams through (`AnswerHead`, at most `HEAD_BYTES`), and when the status
 * was 4xx or 5xx the provider's own message is read from it (`{ error: { message } }` in all four
 * APIs, `{ error: "..." }` or `{ message }` in others, else the first line), bounded to
 * `MAX_REASON_CHARS` printable characters.
 */
import { isPlainObject } from '@toolmask/core/utils';

const HEAD_BYTES = 4 * 1024;
export const MAX_REASON_CHARS = 200;

/** The first `HEAD_BYTES` of an answer. */
export class AnswerHead {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  feed(chunk: Uint8Array): void {
    if (this.size >= HEAD_BYTES) return;
    const part = Buffer.from(chunk.subarray(0, HEAD_BYTES - this.size));
    this.chunks.push(part);
    this.size += part.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

function messageOf(value: unknown): string | undefined {
  const item = Array.isArray(value) ? value[0] : value;
  if (!isPlainObject(item)) return undefined;
  const error = item['error'];
  if (typeof error === 'string') return error;
  if (isPlainObject(error) && typeof error['message'] === 'string') return error['message'];
  return typeof item['message'] === 'string' ? item['message'] : undefined;
}

/** The provider's message in the start of an error answer; undefined when it has no text. */
export function upstreamErrorMessage(head: string): string | undefined {
  const body = head.replace(/^(?:event:[^\n]*\n)?data: ?/, '');
  let message: string | undefined;
  try {
    message = messageOf(JSON.parse(body));
  } catch {
    message = undefined;
  }
  const text = (message ?? body.split('\n').find((line) => line.trim() !== '') ?? '')
    .replace(/[^\x20-\x7e\u00a0-\uffff]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return undefined;
  return text.length <= MAX_REASON_CHARS ? text : `${text.slice(0, MAX_REASON_CHARS - 1)}…`;
}
