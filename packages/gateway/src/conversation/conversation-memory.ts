/**
 * What a conversation keeps in memory between requests, and how much: the previous request as it
 * came and as it was sent (sent-history.ts), its bodies' incremental readers (body/), and the
 * bytes of a request read whole. It is only a cache (the decisions are what matters): forgotten
 * under memory pressure (conversation-registry.ts), the next request pays for a full read once.
 */
import { BodyReaders } from '../body/body-readers.js';
import { SentHistory } from './sent-history.js';

export class ConversationMemory {
  /** Its bodies' incremental readers (body/). */
  readonly bodies = new BodyReaders();
  /** The previous request as it came and as it was sent. */
  readonly history = new SentHistory();
  /** Bytes of a request read whole (not by an incremental reader), kept until the next one. */
  private wholeBodyBytes = 0;

  /** Approximate bytes kept: the readers' or the whole body's, whichever holds the history. */
  get retainedBytes(): number {
    return Math.max(this.wholeBodyBytes, this.bodies.retainedBytes);
  }

  /** The request just prepared was read whole (`bytes`), or by a reader (0). */
  keptWholeBody(bytes: number): void {
    this.wholeBodyBytes = bytes;
  }

  /** Forgets everything kept. */
  forget(): void {
    this.history.clear();
    this.wholeBodyBytes = 0;
    this.bodies.reset();
  }
}
