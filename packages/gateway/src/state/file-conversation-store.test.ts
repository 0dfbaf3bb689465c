/**
 * The file conversation store: the contract every conversation store keeps
 * (test-utils/conversation-store-contract.ts), on a state folder of its own per test, and what is
 * the file store's own: its files, and a conversation pruned whole, owner included.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import {
  CONTRACT_ID,
  contractMeta,
  describeConversationStore,
  maskedDecision,
} from '../test-utils/conversation-store-contract.js';
import { createFileConversationStore } from './file-conversation-store.js';

const DAY_MS = 86_400_000;

async function stateFolder(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-conversations-'));
}

describeConversationStore('file', async () => {
  const stateDir = await stateFolder();
  return {
    store: createFileConversationStore(stateDir),
    cleanup: () => fs.rm(stateDir, { recursive: true, force: true }),
  };
});

describe('the file conversation store', () => {
  const cleanups = cleanUpAfterEach();

  it('keeps a conversation in its folder, and prunes it whole, owner included', async () => {
    const stateDir = await stateFolder();
    cleanups.push(() => fs.rm(stateDir, { recursive: true, force: true }));
    const store = createFileConversationStore(stateDir);
    await store.appendDecisions(CONTRACT_ID, [maskedDecision('a')]);
    await store.saveMeta(CONTRACT_ID, contractMeta);
    await store.claimOwner(CONTRACT_ID, 'user:alice');
    const folder = path.join(stateDir, 'conversations', CONTRACT_ID);
    expect((await fs.readdir(folder)).sort()).toEqual(['decisions.jsonl', 'meta.jsonl', 'owner']);
    expect(await fs.readFile(path.join(folder, 'owner'), 'utf8')).toBe('user:alice');
    expect(await store.prune(Date.now() + DAY_MS, new Set())).toBe(1);
    expect(await store.load(CONTRACT_ID)).toEqual({ decisions: [] });
    expect(await store.ownerOf(CONTRACT_ID)).toBe(undefined);
  });
});

describe('a torn last decision (a crash mid-append)', () => {
  const cleanups = cleanUpAfterEach();

  it('is skipped, and the decisions appended after it are loaded', async () => {
    const stateDir = await stateFolder();
    cleanups.push(() => fs.rm(stateDir, { recursive: true, force: true }));
    await createFileConversationStore(stateDir).appendDecisions(CONTRACT_ID, [maskedDecision('a')]);
    const file = path.join(stateDir, 'conversations', CONTRACT_ID, 'decisions.jsonl');
    await fs.appendFile(file, JSON.stringify(maskedDecision('b')).slice(0, 30));
    // The next process loads the conversation and appends its next decisions.
    const next = createFileConversationStore(stateDir, () => {});
    expect((await next.load(CONTRACT_ID)).decisions).toEqual([maskedDecision('a')]);
    await next.appendDecisions(CONTRACT_ID, [maskedDecision('c')], 1);
    await next.appendDecisions(CONTRACT_ID, [maskedDecision('d')], 2);
    const again = createFileConversationStore(stateDir, () => {});
    expect((await again.load(CONTRACT_ID)).decisions).toEqual(
      ['a', 'c', 'd'].map((key) => maskedDecision(key)),
    );
  });
});
