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

/**
 * The turn the event loop is being given, shared by every pauser of this thread. While one is
 * pending, every pauser is due: concurrent tasks (a pass's writes, the bodies of several requests
 * being read, two passes) then give the loop one turn between them, not one stretch each before
 * it. Per pauser, 12 bodies read at once made one loop iteration 12 stretches long, and `/healthz`,
 * which needs a few iterations, waited far longer than one stretch.
 */
let pendingTurn: Promise<void> | undefined;

/**
 * `sliceMs`, 5 by default: a request needs two or three loop iterations to be answered (accept,
 * read, answer), and an iteration under load holds a stretch in each phase besides work that is
 * not sliced. With 20 ms stretches `/healthz` took up to 190 ms while twelve 49 MiB bodies were
 * read and masked, with 5 ms at most 63–99 ms (bench/concurrentBodies.mjs); a turn costs
 * microseconds, so the work itself takes no longer.
 */
export function eventLoopPauser(sliceMs = 5): EventLoopPauser {
  let since = performance.now();
  const due = () => pendingTurn !== undefined || performance.now() - since >= sliceMs;
  const pause = async (): Promise<void> => {
    if (!due()) return;
    pendingTurn ??= yieldToEventLoop().then(() => {
      pendingTurn = undefined;
    });
    await pendingTurn;
    since = performance.now();
  };
  return Object.assign(pause, { due });
}

/** A turn for the event loop now (after a long synchronous stretch, before another). */
export function yieldToEventLoop(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
