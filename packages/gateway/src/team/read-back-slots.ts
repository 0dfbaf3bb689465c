/**
 * How many read-backs each owner has in flight on a team replica (issue 33, finding 8: one
 * client's 40 parallel reads of its own 28 MB output filled the outputs' connection, and another
 * person's read failed with "Command timed out"). Each read of a shared output holds its bytes
 * (once from the store, once as text, once on disk) and a place on the one connection every
 * owner's reads share; so an owner (the admin counts as one) has at most `perOwner` at once, and a
 * read past that is refused at once with an error the model reads: wait for one, then retry.
 * Every owner's reads together are bounded by the owners' limits times the owners reading. The
 * dashboard's reads of outputs (`/api/outputs`) take the same slots as `/mcp`'s: a page is one
 * more reader of the same connection.
 */
import { ReadSlotsFullError } from '../errors.js';

/** Read-backs one owner may have in flight on a replica. */
export const READ_BACKS_PER_OWNER = 4;

export class ReadBackSlots {
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly perOwner = READ_BACKS_PER_OWNER) {}

  /** `read` in one of `owner`'s slots; refused (`ReadSlotsFullError`) when all are taken. */
  async run<T>(owner: string, read: () => Promise<T>): Promise<T> {
    const release = this.take(owner);
    try {
      return await read();
    } finally {
      release();
    }
  }

  /**
   * One of `owner`'s slots, held until the returned function is called (once; later calls do
   * nothing); `ReadSlotsFullError` when all are taken.
   */
  take(owner: string): () => void {
    const held = this.inFlight.get(owner) ?? 0;
    if (held >= this.perOwner) {
      throw new ReadSlotsFullError(
        'READ_FAILED',
        `too many reads of your outputs at once (${this.perOwner} in flight on this gateway): wait for one to finish, then retry`,
      );
    }
    this.inFlight.set(owner, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.inFlight.get(owner) ?? 1) - 1;
      if (left > 0) this.inFlight.set(owner, left);
      else this.inFlight.delete(owner);
    };
  }

  /** Owners with a read in flight (a bound on the map's size). */
  get owners(): number {
    return this.inFlight.size;
  }
}
