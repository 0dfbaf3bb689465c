/**
 * Long work in small stretches: `pause()` between steps gives the event loop a turn once the
 * current stretch has run `sliceMs`, so timers, I/O and the host's UI keep running while a giant
 * output is hashed or written. Cheap when called often: it only reads the clock.
 */
export function eventLoopPauser(sliceMs = 20): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await yieldToEventLoop();
    since = performance.now();
  };
}

/** A turn for the event loop now (after a long synchronous stretch, before another). */
export function yieldToEventLoop(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
