/**
 * One conversation's tasks, one at a time, in the order they were queued: a request's pass (from
 * reading its body to writing it) and the saving of its answer's state. The queue keeps neither a
 * task's error nor its result (a request's whole history).
 */
export class TaskQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private running = false;
  private afterRunning?: () => void;

  /** Runs `task` after every task queued before it has finished. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(async () => {
      this.running = true;
      try {
        return await task();
      } finally {
        this.running = false;
        const after = this.afterRunning;
        this.afterRunning = undefined;
        after?.();
      }
    });
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** Runs `work` now when no task is under way, else as soon as the one under way ends. */
  whenIdle(work: () => void): void {
    if (this.running) this.afterRunning = work;
    else work();
  }
}
