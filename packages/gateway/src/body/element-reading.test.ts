import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventLoopPauser } from '@toolmask/core/utils';
import { digestElements, hashInSlices } from './element-reading.js';

describe('digestElements', () => {
  it("gives each element's digest (its bytes and the separator before) and the array's, small or giant (issue 30)", async () => {
    const giant = JSON.stringify({ text: 'é'.repeat(3 << 20) });
    const raw = Buffer.from(`[{"a":1},${giant},{"b":[2,3]}]`);
    const ends = [9, 10 + Buffer.byteLength(giant), raw.length - 1];
    const spans = ends.map((end, index): [number, number] => [index === 0 ? 1 : 0, end]);
    const hash = createHash('sha256');
    const pause = eventLoopPauser();
    const digests = await digestElements(raw, 1, spans, hash, pause);
    const starts = [1, ...ends.slice(0, -1)];
    const expected = ends.map((end, index) =>
      createHash('sha256').update(raw.subarray(starts[index], end)).digest('hex'),
    );
    expect(digests.map((digest) => digest.toString('hex'))).toEqual(expected);
    const whole = await hashInSlices(createHash('sha256'), raw.subarray(1, ends[2]), pause);
    expect(hash.digest('hex')).toBe(whole.digest('hex'));
  });
});
