import { describe, expect, it } from 'vitest';
import { eventLoopPauser } from '@toolmask/core/utils';
import { needsPreparedKey, outputKey, prepareOutputKey } from './output-key.js';

describe('outputKey', () => {
  it('is the same whether a giant response is hashed at once or in stretches', async () => {
    const slice = 1 << 20;
    // Escapes and a surrogate pair across the first stretch's end, a lone surrogate, control
    // characters: every piece must be written as JSON.stringify writes the whole.
    const text =
      'a"b\\c\n'.repeat(slice / 6) +
      '😀' +
      '\u0001\t'.repeat(slice / 2) +
      '\ud800 lone' +
      'é中'.repeat(slice / 4);
    expect(text.charCodeAt(slice - 1) >= 0xd800 || text.length > 2 * slice).toBe(true);
    const whole = { name: 'read_file', id: 'c1', response: { output: text, exitCode: 0 } };
    const inStretches = { name: 'read_file', id: 'c1', response: { output: text, exitCode: 0 } };
    expect(needsPreparedKey(inStretches)).toBe(true);
    let turns = 0;
    const base = eventLoopPauser();
    const pause = Object.assign(
      async () => {
        turns++;
        await base();
      },
      { due: () => true },
    );
    await prepareOutputKey(inStretches, pause);
    expect(turns).toBeGreaterThan(2);
    expect(needsPreparedKey(inStretches)).toBe(false);
    expect(outputKey(inStretches)).toBe(outputKey(whole));
    expect(needsPreparedKey({ name: 'x', response: { output: 'short' } })).toBe(false);
  });
});
