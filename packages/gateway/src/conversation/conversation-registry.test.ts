import { describe, expect, it } from 'vitest';
import { ConversationRegistry } from './conversation-registry.js';
import type { ConversationOptions } from './conversation.js';

function registry(maxConversations: number): ConversationRegistry {
  return new ConversationRegistry({
    maxRetainedBytes: 1_000_000,
    maxConversations,
    create: (id) =>
      ({
        id,
        host: {
          getToolOutputMaskingConfig: () => ({}),
          getSessionId: () => id,
          storage: { getProjectTempDir: () => '/nowhere' },
        },
        store: {},
        outputs: {},
        readToolName: 'read_tool_output',
        now: () => 0,
        telemetry: () => undefined,
        debug: () => undefined,
      }) as unknown as ConversationOptions,
  });
}

describe('ConversationRegistry', () => {
  it('forgets the least recently used idle conversations beyond its bound', () => {
    const conversations = registry(2);
    for (const id of ['a', 'b', 'c']) conversations.get(id);
    conversations.get('a');
    conversations.trim();
    expect([...conversations.ids()]).toEqual(['c', 'a']);
  });

  it('never forgets a conversation with a request in flight: the handler gets it back', () => {
    const conversations = registry(2);
    const lease = conversations.lease('a');
    const second = conversations.lease('a');
    for (const id of ['b', 'c', 'd']) conversations.get(id);
    conversations.trim();
    expect([...conversations.ids()]).toEqual(['a', 'd']);
    expect(conversations.get('a')).toBe(lease.conversation);
    // Each lease counts once, however often it is released.
    lease.release();
    lease.release();
    for (const id of ['b', 'c']) conversations.get(id);
    conversations.trim();
    expect([...conversations.ids()]).toContain('a');
    second.release();
    for (const id of ['e', 'f']) conversations.get(id);
    conversations.trim();
    expect([...conversations.ids()]).toEqual(['e', 'f']);
  });
});
