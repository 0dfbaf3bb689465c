/**
 * The gateway's bounds on memory across requests (issue 21, hole 3): one body is at most
 * `maxBodyBytes`, but nothing else limited how many were held at once (twelve concurrent 49 MiB
 * bodies took the gateway to 2 GB). Two bounds, shared by every model request of a gateway:
 *
 * - `BodyBudget`: the bytes of request bodies held at once, from the first byte read (or, for a
 *   body that declares its `content-length`, before any is read) until the request's exchange
 *   closes, its answer streamed and recorded. A request that finds no room is answered 503 `BUSY`
 *   with `Retry-After`, its body not kept (handle-model-request.ts).
 * - `PassSlots`: how many masking steps run at once across conversations; the others wait their
 *   turn in arrival order, and one whose client goes away leaves the queue.
 */

/** Room for one request's body in a `BodyBudget`, grown as its bytes come, released once. */
export interface BodyReservation {
  /** Holds `totalBytes` for this request in all; false (holding what it held) past the budget. */
  holdUpTo(totalBytes: number): boolean;
  /** Gives its bytes back (again: nothing). */
  release(): void;
}

export class BodyBudget {
  private held = 0;

  constructor(readonly limitBytes: number) {}

  /** Bytes held now, by every request in flight. */
  get heldBytes(): number {
    return this.held;
  }

  /** A reservation of nothing yet. */
  open(): BodyReservation {
    let mine = 0;
    let released = false;
    return {
      holdUpTo: (totalBytes) => {
        if (released) return false;
        if (totalBytes <= mine) return true;
        const more = totalBytes - mine;
        if (this.held + more > this.limitBytes) return false;
        this.held += more;
        mine = totalBytes;
        return true;
      },
      release: () => {
        if (released) return;
        released = true;
        this.held -= mine;
        mine = 0;
      },
    };
  }
}

/**
 * A counting semaphore with a FIFO queue. `acquire` resolves with the slot's release once one is
 * free, or with undefined when `signal` aborts first (the waiter leaves the queue at once).
 */
export class PassSlots {
  private busy = 0;
  private readonly queue: Array<() => void> = [];

  constructor(readonly limit: number) {}

  /** Slots taken now, and requests waiting for one. */
  get running(): number {
    return this.busy;
  }

  get waiting(): number {
    return this.queue.length;
  }

  async acquire(signal?: AbortSignal): Promise<(() => void) | undefined> {
    if (signal?.aborted) return undefined;
    if (this.busy < this.limit && this.queue.length === 0) {
      this.busy++;
      return this.releaser();
    }
    return new Promise((resolve) => {
      const onAbort = () => {
        const at = this.queue.indexOf(grant);
        if (at >= 0) this.queue.splice(at, 1);
        resolve(undefined);
      };
      // Called by `next` with the slot already counted as taken.
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.releaser());
      };
      this.queue.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.busy--;
      this.next();
    };
  }

  private next(): void {
    while (this.busy < this.limit && this.queue.length > 0) {
      this.busy++;
      this.queue.shift()?.();
    }
  }
}
