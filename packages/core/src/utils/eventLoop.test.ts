/**
 * The pauser on a clock the test moves (`performance.now` stubbed): whether a stretch is due and
 * whether the loop got a turn are counted, never timed, so a loaded machine cannot change the
 * outcome. eventLoop.reliability.test.ts runs the same checks on the wall clock.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { eventLoopPauser } from './eventLoop.js';

let now = 0;

beforeEach(() => {
  now = 1_000;
  vi.spyOn(performance, 'now').mockImplementation(() => now);
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** Whether the loop has taken a turn since this was called (a task of the loop's own). */
function loopTurnWatch(): () => boolean {
  let turned = false;
  setImmediate(() => (turned = true));
  return () => turned;
}

describe('eventLoopPauser', () => {
  it('gives the loop a turn only once the stretch has run its time', async () => {
    const pause = eventLoopPauser(30);
    expect(pause.due()).toBe(false);
    const early = loopTurnWatch();
    await pause();
    // Not due: no turn, the loop's task has not run.
    expect(early()).toBe(false);
    now += 29;
    expect(pause.due()).toBe(false);
    now += 1;
    expect(pause.due()).toBe(true);
    const due = loopTurnWatch();
    await pause();
    expect(due()).toBe(true);
    // A fresh stretch from the turn on.
    expect(pause.due()).toBe(false);
    now += 29;
    expect(pause.due()).toBe(false);
  });

  it('tasks sharing a pauser share its turn: one stretch after it, not one per task', async () => {
    const pause = eventLoopPauser(20);
    // The loop's turns, counted by a task of the loop's own: a stretch belongs to the turn in
    // which it ended.
    let turn = 0;
    let counting = true;
    const count = () => {
      turn++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const fullStretchesPerTurn = new Map<number, number>();
    // Four tasks that each work until the pauser says so, as a pass's concurrent writes do: a
    // step of work moves the clock by 1 ms.
    const task = async () => {
      for (let step = 0; step < 5; step++) {
        const started = now;
        while (!pause.due()) now += 1;
        if (now - started >= 20) {
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
    // The first task's stretch.
    now += 10;
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
