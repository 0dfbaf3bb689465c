/**
 * A conversation's incremental readers, one per body codec it has been sent in (a conversation
 * usually comes through one protocol; a fallback to another model's route keeps it in that one).
 */
import type { BodyCodec } from './body-codec.js';
import { IncrementalBody } from './incremental-body.js';

export class BodyReaders {
  private readonly readers = new Map<BodyCodec, IncrementalBody>();

  /** The reader and writer of this conversation's bodies in one codec's shape. */
  reader(codec: BodyCodec): IncrementalBody {
    let reader = this.readers.get(codec);
    if (!reader) {
      reader = new IncrementalBody(codec);
      this.readers.set(codec, reader);
    }
    return reader;
  }

  /** Bytes the readers keep between requests (the memory bound). */
  get retainedBytes(): number {
    let total = 0;
    for (const reader of this.readers.values()) total += reader.retainedBytes;
    return total;
  }

  /** Forgets what every reader keeps (memory pressure). */
  reset(): void {
    for (const reader of this.readers.values()) reader.reset();
  }
}
