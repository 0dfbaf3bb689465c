import { describe, expect, it } from 'vitest';
import { observeMasking } from './masking-moments.js';
import { withColdSignal } from './strategies/cold-signal.js';
import { replaySessions } from './engine.js';
import { countCharacters, maskFirstOutput, smallTask } from '../test-data/engine-fixtures.js';

const masker = (flags: boolean[]) => maskFirstOutput(flags, { whenCold: true });

const session = { id: 'replay-1', label: 'one', tasks: [smallTask()] };

describe('observeMasking', () => {
  it('records each replaced tool response once, with the request that replaced it', async () => {
    const observed = observeMasking(masker([]));
    await replaySessions([session], [observed.strategy], { countTokens: countCharacters });
    const moments = observed.moments('replay-1');
    expect(moments).toHaveLength(1);
    expect(moments[0]).toMatchObject({ request: 2, contentIndex: 2, partIndex: 0 });
    expect(moments[0]?.original.functionResponse?.response).toEqual({ output: 'x'.repeat(10) });
    expect(moments[0]?.masked.functionResponse?.response).toEqual({ output: 'm' });
  });

  it('with withColdSignal(true) every pass is told the cache is cold', async () => {
    const flags: boolean[] = [];
    const observed = observeMasking(withColdSignal(masker(flags), true));
    await replaySessions([session], [observed.strategy], { countTokens: countCharacters });
    expect(flags).toEqual([true, true, true]);
    expect(observed.moments('replay-1').map((moment) => moment.request)).toEqual([1]);
  });
});
