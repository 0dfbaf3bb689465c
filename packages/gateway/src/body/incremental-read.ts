/** What a conversation's incremental reader hands out for one body (incremental-body.ts). */
import type { Content } from '@toolmask/core';
import type { BodyDescription } from './body-codec.js';
import type { KeptElements } from './previous-body.js';
import type { PiecedBody } from './pieced-body.js';
import type { BodySegments } from './prompt-segments.js';

/** A prefix of a read's contents that is what was sent last time (`IncrementalRead.sentBefore`). */
export interface SentBefore {
  sent: readonly Content[];
  count: number;
}

export interface IncrementalRead {
  contents: Content[];
  description: BodyDescription;
  /**
   * Tool outputs the protocol left alone in elements decoded from this body (new since the
   * previous one), and elements too heavy to parse.
   */
  newUnmaskable: number;
  /**
   * The first `count` contents are the very objects of `sent`, the array the previous body was
   * written from (each element kept since then, and each written as what was sent for it): what
   * the conversation would find by comparing them with what it sent (sent-history.ts). Absent when
   * the previous body was not written, or nothing of it is kept.
   */
  sentBefore?: SentBefore | undefined;
  /** Elements decoded from this body (the rest were the previous body's). */
  decoded: number;
  /**
   * How the previous body's elements were found unchanged: by comparing its kept bytes, by the
   * digest, or not at all (nothing to compare with, or another shape).
   */
  checked: KeptElements['checked'];
  /**
   * This body with `sent` in place of its conversation (see the module comment): the body itself
   * when every element is still its own bytes. `differs`, when the caller knows: the indices
   * (ascending) of `sent` whose content is not the one this read handed out, and no other; the
   * write then looks at those and the elements written before only (element-writes.ts).
   */
  write(sent: readonly Content[], differs?: readonly number[]): Promise<Buffer>;
  /** The same body as `write`'s, as it is sent: pieces where that saves a copy (pieced-body.ts). */
  send(sent: readonly Content[], differs?: readonly number[]): Promise<Buffer | PiecedBody>;
  /** Its prompt segments as it came and as written (prompt-segments.ts), once written. */
  segments(): BodySegments | undefined;
  /** The body without its conversation (the array empty), for what reads only the rest. */
  outside(): Buffer;
  /**
   * What this read leaves for after the send, done: the digests the next read checks against,
   * the client's versions of the elements written measured and let go. The next read does it
   * first if nobody did.
   */
  settle(): Promise<void>;
}
