/**
 * How a conversation agrees with the other writers of its store (conversation-sync.ts,
 * shared-store-sync.ts), with two conversations of one id over one shared store in memory (two
 * replicas) and the real masking pass: what one decided, the other sends byte for byte; the one
 * that loses the race to append runs its pass again over the winner's decisions; a store that lost
 * decisions or cannot be read fails no request. `LOCAL_SYNC` never reads the store past its load.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveToolOutputMaskingConfigForModel } from '@toolmask/core/settings';
import { createFileToolOutputStore } from '@toolmask/core/storage';
import type { Content } from '@toolmask/core';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import type { ConversationStore } from '../state/stores.js';
import { memoryTeamStores } from '../test-utils/memory-team-stores.js';
import { stubConversationStore } from '../test-utils/stub-conversation-store.js';
import { Conversation } from './conversation.js';
import { LOCAL_SYNC, type ConversationSync } from './conversation-sync.js';
import { SHARED_STORE_SYNC } from './shared-store-sync.js';

const cleanups = cleanUpAfterEach();
const ID = '0123456789abcdef0123456789abcdef';
const config = resolveToolOutputMaskingConfigForModel(undefined, {
  enabled: true,
  toolProtectionThreshold: 2_000,
  minPrunableTokensThreshold: 1_000,
  // Any batch masks: the warm rule is not the subject, and these sessions are short.
  warmRule: 'floor',
});

function replica(store: ConversationStore, sync: ConversationSync, lines: string[] = []) {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-sync-'));
  cleanups.push(() => fs.promises.rm(stateDir, { recursive: true, force: true }));
  return new Conversation({
    id: ID,
    host: { getSessionId: () => ID, storage: { getProjectTempDir: () => stateDir } },
    store,
    sync,
    outputs: createFileToolOutputStore(),
    readToolName: 'read_tool_output',
    now: () => 1_700_000_000_000,
    telemetry: () => undefined,
    debug: (line) => lines.push(line),
  });
}

/** A session of `steps` shell calls with outputs large enough to mask (a fresh copy each time). */
function shellHistory(steps: number): Content[] {
  const contents: Content[] = [{ role: 'user', parts: [{ text: 'build it' }] }];
  for (let step = 0; step < steps; step++) {
    contents.push(
      { role: 'model', parts: [{ functionCall: { id: `c${step}`, name: 'run_shell_command' } }] },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: `c${step}`,
              name: 'run_shell_command',
              response: { output: `line ${step}\n`.repeat(2_000) },
            },
          },
        ],
      },
    );
  }
  return contents;
}

const send = (conversation: Conversation, contents: Content[]) =>
  conversation.exclusive(() => conversation.prepareInTurn(contents, { config }));

describe('the shared-store sync', () => {
  it('sends what another replica decided, byte for byte, and records no decision twice', async () => {
    const stores = memoryTeamStores();
    const [first, second] = [SHARED_STORE_SYNC, SHARED_STORE_SYNC].map((sync) =>
      replica(stores.conversations, sync),
    ) as [Conversation, Conversation];
    const byFirst = await send(first, shellHistory(4));
    expect(byFirst.result.maskedCount).toBeGreaterThan(0);
    const decided = stores.decisionCount();
    const bySecond = await send(second, shellHistory(4));
    expect(bySecond.result.maskedCount).toBe(0);
    expect(JSON.stringify(bySecond.contents)).toBe(JSON.stringify(byFirst.contents));
    expect(stores.decisionCount()).toBe(decided);
  });

  it('the replica that lost the race to append runs its pass again over the winner’s decisions', async () => {
    const stores = memoryTeamStores();
    const lines: string[] = [];
    const [first, second] = [
      replica(stores.conversations, SHARED_STORE_SYNC),
      replica(stores.conversations, SHARED_STORE_SYNC, lines),
    ];
    // Both load before either decides; then each passes over the same request at once.
    await Promise.all([first.hasMaskedOutputs(), second.hasMaskedOutputs()]);
    stores.delay = 20;
    const [one, other] = await Promise.all([
      send(first, shellHistory(4)),
      send(second, shellHistory(4)),
    ]);
    stores.delay = 0;
    expect(stores.conflicts).toBeGreaterThan(0);
    expect(JSON.stringify(other.contents)).toBe(JSON.stringify(one.contents));
    expect(one.unsavedDecisions + other.unsavedDecisions).toBe(0);
    expect(lines.join('\n')).toContain('another gateway decided first');
  });

  it('goes on from the store’s count when the store lost decisions', async () => {
    const stores = memoryTeamStores();
    const lines: string[] = [];
    const conversation = replica(stores.conversations, SHARED_STORE_SYNC, lines);
    await send(conversation, shellHistory(3));
    stores.loseDecisions();
    const next = await send(conversation, shellHistory(5));
    expect(next.unsavedDecisions).toBe(0);
    expect(next.result.maskedCount).toBeGreaterThan(0);
    expect(lines.join('\n')).toMatch(/the store holds 0 decisions, \d+ were known/);
    expect(stores.decisionCount()).toBeGreaterThan(0);
  });

  it('a store that cannot be read: the request goes with the decisions known here, said behind', async () => {
    const stores = memoryTeamStores();
    const conversation = replica(stores.conversations, SHARED_STORE_SYNC);
    const masked = await send(conversation, shellHistory(4));
    stores.failing = true;
    const behind = await send(conversation, shellHistory(4));
    stores.failing = false;
    expect(behind.storeBehind).toBe(true);
    expect(JSON.stringify(behind.contents)).toBe(JSON.stringify(masked.contents));
  });
});

describe('the local sync', () => {
  it('never reads the store past its load, and appends without a count', async () => {
    const appended: Array<number | undefined> = [];
    const store = stubConversationStore({
      since: () => Promise.reject(new Error('a local store is never caught up with')),
      appendDecisions: async (_id, _records, expectedCount) => {
        appended.push(expectedCount);
      },
    });
    const conversation = replica(store, LOCAL_SYNC);
    expect(conversation.lookAhead()).toBe(undefined);
    const prepared = await send(conversation, shellHistory(4));
    expect(prepared.result.maskedCount).toBeGreaterThan(0);
    expect(prepared.storeBehind).toBe(undefined);
    // Appended after the send (the pipeline's settle), not before it.
    expect(appended).toEqual([]);
    await conversation.writeDecisions();
    expect(appended).toEqual([undefined]);
    expect(conversation.stateBeforeAnswerEnds).toBe(false);
  });

  it("uses a pass's decisions at once and appends them after the send; a failed append is tried again (issue 30)", async () => {
    const appended: string[][] = [];
    let failing = true;
    const lines: string[] = [];
    const store = stubConversationStore({
      appendDecisions: async (_id, records) => {
        if (failing) throw new Error('disk full');
        appended.push(records.map((record) => record.key));
      },
    });
    const conversation = replica(store, LOCAL_SYNC, lines);
    const first = await send(conversation, shellHistory(4));
    expect(first.result.maskedCount).toBeGreaterThan(0);
    expect(first.unsavedDecisions).toBe(0);
    await conversation.writeDecisions();
    expect(lines.some((line) => line.includes('tried again with its next request'))).toBe(true);
    // Still in use: the next request carries the same bytes for the outputs masked.
    const history = shellHistory(5);
    const next = await send(conversation, history);
    expect(first.changedIndices.length).toBeGreaterThan(0);
    for (const index of first.changedIndices) {
      expect(JSON.stringify(next.contents[index])).toBe(JSON.stringify(first.contents[index]));
    }
    failing = false;
    await conversation.writeDecisions();
    // The first pass's decisions, then the second's, each once.
    const keys = appended.flat();
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.length).toBeGreaterThan(first.result.maskedCount);
  });
});
