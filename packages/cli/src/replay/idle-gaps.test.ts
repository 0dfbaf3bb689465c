import { describe, expect, it } from 'vitest';
import { seedIdleGaps } from './idle-gaps.js';
import { text, toolResponse } from '../test-data/engine-fixtures.js';
import type { Content, ReplaySession, ReplayTask } from './types.js';

/** A task of `requests` requests: a prompt, then (model turn, tool output) pairs. */
function task(label: string, requests: number): ReplayTask {
  const contents: Content[] = [text('user', label)];
  for (let index = 1; index < requests; index++) {
    contents.push(text('model', 'm'), toolResponse(`c${index}`, 'o'));
  }
  contents.push(text('model', 'done'));
  return { label, contents };
}

const session: ReplaySession = {
  id: 'replay-1',
  label: 'chain',
  tasks: [task('a', 12), task('b', 3), task('c', 8)],
};

describe('seedIdleGaps', () => {
  it('puts one gap in the middle half of every task long enough, never at its start', () => {
    const gaps = [...(seedIdleGaps([session]).get('replay-1') ?? [])].sort((a, b) => a - b);
    expect(gaps).toHaveLength(2);
    const [first, second] = gaps as [number, number];
    expect(first).toBeGreaterThanOrEqual(3); // task a: requests 0..11, middle half 3..8
    expect(first).toBeLessThan(9);
    expect(second).toBeGreaterThanOrEqual(15 + 2); // task c: requests 15..22, middle half 17..20
    expect(second).toBeLessThan(15 + 6);
  });

  it('draws the same gaps for the same input and seed, others for another seed', () => {
    const draws = (seed: number) => [...(seedIdleGaps([session], seed).get('replay-1') ?? [])];
    expect(draws(1)).toEqual(draws(1));
    const seen = new Set(Array.from({ length: 20 }, (_, seed) => draws(seed).join(',')));
    expect(seen.size).toBeGreaterThan(1);
  });
});
