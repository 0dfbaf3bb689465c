import { describe, expect, it } from 'vitest';
import { ToolOutputMaskingService } from '@toolmask/core';
import { MemoryTeamStores } from '../test-utils/memory-team-stores.js';
import { DurableDecisions } from './durable-decisions.js';

const noPause = Object.assign(async () => undefined, { due: () => false });

function decisionsOn(stores: MemoryTeamStores): DurableDecisions {
  return new DurableDecisions({
    id: '0123abcd',
    store: stores.conversations,
    service: new ToolOutputMaskingService(),
    adoptMeta: () => undefined,
    debug: () => undefined,
  });
}

describe('DurableDecisions.writeUsed', () => {
  it('appends the decisions in use once, and takes no turn of its chain when nothing is left (issue 30)', async () => {
    const stores = new MemoryTeamStores('/tmp/unused');
    const decisions = decisionsOn(stores);
    await decisions.load();
    await decisions.useNow(
      [
        {
          kind: 'kept',
          key: 'run\u0000c1\u0000' + '0'.repeat(32),
          toolName: 'run',
          callId: 'c1',
          at: 0,
        },
      ],
      noPause,
    );
    const appending = decisions.writeUsed();
    // An append under way: a second call waits for it.
    expect(decisions.writeUsed()).not.toBe(appending);
    await decisions.writeUsed();
    expect((await stores.conversations.load('0123abcd')).decisions).toHaveLength(1);
    // Nothing left: the settled chain itself.
    const settled = decisions.writeUsed();
    expect(decisions.writeUsed()).toBe(settled);
    await settled;
    expect((await stores.conversations.load('0123abcd')).decisions).toHaveLength(1);
  });
});
