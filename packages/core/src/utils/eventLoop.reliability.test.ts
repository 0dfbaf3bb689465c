/**
 * The pauser on the wall clock, with real stretches of busy work (the e2e lane: a loaded machine
 * stretches a few milliseconds past a slice and must not fail the unit lane). eventLoop.test.ts
 * checks the same behaviour on a clock the test moves.
 */
import { describe, expect, it } from 'vitest';
import { eventLoopPauser } from './eventLoop.js';

describe('eventLoopPauser', () => {
  it('gives the loop a turn only once the stretch has run its time', async () => {
    const pause = eventLoopPauser(30);
    let timerRan = false;
    setTimeout(() => (timerRan = true), 0);
    expect(pause.due()).toBe(false);
    await pause();
    // Not due: no turn, the timer has not run.
    expect(timerRan).toBe(false);
    const until = performance.now() + 40;
    while (performance.now() < until) {
      // a stretch of work
    }
    expect(pause.due()).toBe(true);
    await pause();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(timerRan).toBe(true);
    expect(pause.due()).toBe(false);
  });

  it('tasks sharing a pauser share its turn: one stretch after it, not one per task', async () => {
    const pause = eventLoopPauser(20);
    // The loop's turns, counted by a task of the loop's own: a stretch belongs to the turn in
    // which it ended. Counted, not timed, so a loaded machine cannot make this flaky.
    let turn = 0;
    let counting = true;
    const count = () => {
      turn++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const fullStretchesPerTurn = new Map<number, number>();
    // Four tasks that each work until the pauser says so, as a pass's concurrent writes do.
    const task = async () => {
      for (let step = 0; step < 5; step++) {
        const started = performance.now();
        while (!pause.due()) {
          // work
        }
        if (performance.now() - started >= 20) {
          fullStretchesPerTurn.set(turn, (fullStretchesPerTurn.get(turn) ?? 0) + 1);
        }
        await pause();
      }
    };
    await Promise.all([task(), task(), task(), task()]);
    counting = false;
    // With a turn of its own per task, four stretches would run between two turns of the loop.
    expect(Math.max(...fullStretchesPerTurn.values())).toBe(1);
    expect([...fullStretchesPerTurn.values()].reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(2);
  });
});

describe('eventLoopPauser across pausers', () => {
  it('while one pauser gives the loop its turn, every pauser is due and waits for that turn', async () => {
    const first = eventLoopPauser(5);
    const until = performance.now() + 10;
    while (performance.now() < until) {
      // the first task's stretch
    }
    const second = eventLoopPauser(5);
    expect(second.due()).toBe(false);
    const turns: string[] = [];
    setImmediate(() => turns.push('loop'));
    const firstTurn = first().then(() => turns.push('first'));
    // A fresh stretch of its own, yet it waits: one loop turn between the two tasks, not a
    // stretch of each before the loop gets one.
    expect(second.due()).toBe(true);
    await Promise.all([firstTurn, second().then(() => turns.push('second'))]);
    expect(turns).toEqual(['loop', 'first', 'second']);
    expect(second.due()).toBe(false);
  });
});
