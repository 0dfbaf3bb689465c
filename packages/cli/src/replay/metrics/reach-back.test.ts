import { describe, expect, it } from 'vitest';
import { quantile, reachBacks } from './reach-back.js';
import { countCharacters, sessionOf, text, toolResponse } from '../../test-data/engine-fixtures.js';
import type { Content } from '../types.js';

const quoting = (line: string): Content => ({
  role: 'model',
  parts: [{ functionCall: { id: 'e', name: 'replace', args: { old_string: line } } }],
});

describe('reachBacks (hand-made session, tokens = characters)', () => {
  it('counts the tool output sent between an output and the last turn quoting its line', () => {
    const session = sessionOf(
      [
        text('user', 'go'),
        text('model', 'read'),
        toolResponse('a', 'def first_function():\nshort'), // 27 characters
        text('model', 'next'),
        toolResponse('b', 'x'.repeat(100)),
        quoting('def first_function():'), // reaches across b: 100
        toolResponse('c', 'y'.repeat(40)),
        quoting('    def first_function():'), // the last quote: across b and c, 140
      ],
      [text('user', 'go'), quoting('x'.repeat(100))],
    );
    // Only a's line is quoted in its own task (task two's quote of b's line does not count).
    expect(reachBacks(session, countCharacters)).toEqual([140]);
  });

  it('reads quantiles off a sorted list', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(3);
    expect(quantile([1, 2, 3, 4], 0.99)).toBe(4);
    expect(quantile([], 0.5)).toBe(0);
  });
});
