import { describe, expect, it } from 'vitest';
import { TaskQueue } from './task-queue.js';

describe('TaskQueue', () => {
  it('runs tasks one at a time in order; a failed task does not stop the next', async () => {
    const queue = new TaskQueue();
    const order: string[] = [];
    let release = () => undefined as void;
    const first = queue.run(async () => {
      order.push('first starts');
      await new Promise<void>((resolve) => (release = resolve));
      order.push('first ends');
      throw new Error('first failed');
    });
    const second = queue.run(async () => {
      order.push('second');
      return 2;
    });
    await Promise.resolve();
    release();
    await expect(first).rejects.toThrow('first failed');
    expect(await second).toBe(2);
    expect(order).toEqual(['first starts', 'first ends', 'second']);
  });

  it('work asked for while a task runs waits for it to end; when idle it runs at once', async () => {
    const queue = new TaskQueue();
    const seen: string[] = [];
    queue.whenIdle(() => seen.push('idle now'));
    expect(seen).toEqual(['idle now']);
    let release = () => undefined as void;
    const task = queue.run(async () => {
      queue.whenIdle(() => seen.push('after the task'));
      seen.push('task');
      await new Promise<void>((resolve) => (release = resolve));
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(seen).toEqual(['idle now', 'task']);
    release();
    await task;
    expect(seen).toEqual(['idle now', 'task', 'after the task']);
  });
});
