/**
 * The longest stretch the event loop was blocked while `work` ran: the lateness of a 5 ms timer,
 * and, at the end, of the last tick (work that never yields is one block, seen only there).
 * For the bounded-time guarantees of docs/reliability.md.
 */
export async function longestBlock<T>(
  work: () => Promise<T>,
): Promise<{ result: T; blockedMs: number }> {
  let blockedMs = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    blockedMs = Math.max(blockedMs, now - last - 5);
    last = now;
  }, 5);
  try {
    const result = await work();
    blockedMs = Math.max(blockedMs, performance.now() - last - 5);
    return { result, blockedMs };
  } finally {
    clearInterval(timer);
  }
}
