import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { conversationKey } from './conversation-key.js';

/** The key as it was first made (the conversation ids stores hold are these). */
const keyByUpdates = (session: string | undefined, head: Buffer) =>
  createHash('sha256')
    .update(session ?? '', 'utf8')
    .update('\u0000')
    .update(head)
    .digest('hex')
    .slice(0, 32);

describe('conversationKey', () => {
  it('is the same key as ever: the SHA-256 of the session, a NUL and the head', () => {
    const head = Buffer.from('{"role":"user","parts":[{"text":"héllo 😀"}]}');
    for (const session of [undefined, '', 'abc-123', 'séance ✓']) {
      expect(conversationKey(session, head)).toBe(keyByUpdates(session, head));
    }
    expect(conversationKey('a', head)).not.toBe(conversationKey('b', head));
  });
});
