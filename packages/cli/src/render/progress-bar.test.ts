import { describe, expect, it } from 'vitest';
import { createProgressBar, PROGRESS_MIN_REQUESTS } from './progress-bar.js';

function stream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, isTTY, columns: 80, write: (text: string) => writes.push(text) };
}

describe('createProgressBar', () => {
  it('draws on a terminal for a long run, throttled, and erases itself', () => {
    const tty = stream(true);
    let now = 0;
    const bar = createProgressBar(tty, 1000, () => now);
    bar.update(1, 1000);
    bar.update(2, 1000); // within 100 ms: skipped
    now = 500;
    bar.update(500, 1000);
    bar.finish();
    expect(tty.writes).toHaveLength(3);
    expect(tty.writes[1]).toContain('50% 500/1,000 requests');
    expect(tty.writes[2]).toBe('\r\u001b[2K');
  });

  it('stays silent when stderr is not a terminal or the run is short', () => {
    const pipe = stream(false);
    createProgressBar(pipe, 10_000).update(1, 10_000);
    const tty = stream(true);
    createProgressBar(tty, PROGRESS_MIN_REQUESTS - 1).update(1, PROGRESS_MIN_REQUESTS - 1);
    expect([...pipe.writes, ...tty.writes]).toEqual([]);
  });
});
