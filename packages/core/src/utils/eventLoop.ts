/**
 * Long work in small stretches: `pause()` between steps gives the event loop a turn once the
 * current stretch has run `sliceMs`, so timers, I/O and the host's UI keep running while a giant
 * output is hashed or written, or a history of many thousand entries is measured. Cheap when called
 * often: it only reads the clock. A hot loop checks `pause.due()` (synchronous) and awaits
 * `pause()` only when it says so, which costs a loop step no promise at all.
 */
export interface EventLoopPauser {
  /** A turn for the event loop when the current stretch has run its time; nothing otherwise. */
  (): Promise<void>;
  /** Whether the current stretch has run its time (the next `pause()` will yield). */
  due(): boolean;
}

export function eventLoopPauser(sliceMs = 20): EventLoopPauser {
  let since = performance.now();
  // Tasks that share a pauser (concurrent writes of one pass) share its turn: each waits for the
  // one under way, so the stretch after it is one stretch, not one per task.
  let turn: Promise<void> | undefined;
  const due = () => performance.now() - since >= sliceMs;
  const pause = (): Promise<void> => {
    if (turn) return turn;
    if (!due()) return Promise.resolve();
    turn = yieldToEventLoop().then(() => {
      since = performance.now();
      turn = undefined;
    });
    return turn;
  };
  return Object.assign(pause, { due });
}

/** A turn for the event loop now (after a long synchronous stretch, before another). */
export function yieldToEventLoop(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
