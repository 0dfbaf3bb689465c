import { describe, expect, it } from 'vitest';
import { earlyMaskingMoments } from './early-masking.js';
import { smallTask, toolResponse } from '../../test-data/engine-fixtures.js';
import type { Content, ReplayStrategy } from '../types.js';

/** Masks every tool output longer than 15 characters in the history it is given. */
const masksLongOutputs: ReplayStrategy = {
  name: 'fake',
  startSession: () => ({
    async mask(history, pending) {
      const contents: Content[] = history.map((content) => {
        const output = content.parts?.[0]?.functionResponse?.response?.['output'];
        return typeof output === 'string' && output.length > 15 ? toolResponse('m', 'm') : content;
      });
      return { contents: [...contents, pending], maskedCount: 0, offloadedBytes: 0, failures: 0 };
    },
  }),
};

describe('earlyMaskingMoments', () => {
  it('masks each output on its own at the request after the one that sent it', async () => {
    // smallTask: prompt (r0), model, output of 10 (r1), model, output of 20 (r2), model. The
    // second task's last output is sent by the last request: no later request masks it.
    const moments = await earlyMaskingMoments(
      { id: 's', label: 's', tasks: [smallTask(), smallTask('b')] },
      masksLongOutputs,
    );
    expect(moments.map((moment) => [moment.request, moment.contentIndex])).toEqual([
      [2, 2],
      [3, 4],
      [5, 8],
    ]);
    // The short output is left whole (its moment's masked part is the recorded one).
    expect(moments[0]?.masked).toBe(moments[0]?.original);
    expect(moments[1]?.masked.functionResponse?.response).toEqual({ output: 'm' });
  });
});
