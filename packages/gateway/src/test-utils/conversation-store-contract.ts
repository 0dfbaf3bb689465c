/**
 * The behaviour every `ConversationStore` (state/stores.ts) keeps, whoever else writes it, as one
 * vitest suite that each store's test file runs against its own backend:
 *
 *   describeConversationStore('redis', async () => ({ store, cleanup }));
 *
 * `open` is called before each test and must give a store with nothing saved yet (a fresh folder
 * or key space); after the test the suite calls `cleanup`. The suite checks what the gateway
 * relies on: decisions kept in order and named by position (`since`, `expectedCount`), the meta
 * beside them, the conditional append that exactly one of several writers wins, the first owner
 * claimed, ids refused before anything is stored, and a prune that never takes a conversation in
 * use or written since its limit. What a store does on its own (Redis's key layout and expiry,
 * the file store's folders) is its own test file's.
 *
 * Test code: it calls `describe`/`it`, so only a test file imports it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DecisionConflictError,
  type ConversationMeta,
  type ConversationStore,
  type DecisionRecord,
} from '../state/stores.js';

export interface OpenedConversationStore {
  store: ConversationStore;
  cleanup(): Promise<void>;
}

export const CONTRACT_ID = '0123456789abcdef0123456789abcdef';
const OTHER = 'fedcba9876543210';
const DAY_MS = 86_400_000;

export const maskedDecision = (key: string, at = 1_700_000_000_000): DecisionRecord => ({
  kind: 'masked',
  key,
  toolName: 'run_shell_command',
  callId: `call-${key}`,
  response: { output: `[masked: ${key}] first lines…` },
  filePath: `/state/tool-outputs/session-${CONTRACT_ID}/run_shell_command.${key}.0123456789abcdef.txt`,
  bytes: 48_000,
  tokensBefore: 12_000,
  tokensAfter: 120,
  at,
});

export const keptDecision = (key: string): DecisionRecord => ({
  kind: 'kept',
  key,
  toolName: 'read_file',
  callId: `call-${key}`,
  at: 1_700_000_000_500,
});

export const contractMeta: ConversationMeta = {
  startedAt: 1_700_000_000_000,
  lastEndedAt: 1_700_000_060_000,
  lastPromptTokens: 52_000,
  lastCachedTokens: 48_000,
  client: 'gemini-cli',
  model: 'gemini-2.5-pro',
};

/** Conversation ids no store may take (not hex digests, or too long). */
export const BAD_IDS = ['ABCDEF0123456789', 'abc', '../../etc', 'g123456789', `${'a'.repeat(65)}`];

export function describeConversationStore(
  name: string,
  open: () => Promise<OpenedConversationStore>,
): void {
  describe(`ConversationStore contract: ${name}`, () => {
    const opened: { current?: OpenedConversationStore } = {};
    const store = () => opened.current?.store as ConversationStore;

    beforeEach(async () => {
      opened.current = await open();
    });
    afterEach(async () => {
      await opened.current?.cleanup();
      opened.current = undefined;
    });

    describeDecisions(store);
    describeConditionalAppends(store);
    describeOwners(store);
    describeRefusalsAndPrune(store);
  });
}

function describeDecisions(store: () => ConversationStore): void {
  it('loads a conversation it never saw as empty, with no meta and no owner', async () => {
    expect(await store().load(CONTRACT_ID)).toEqual({ decisions: [] });
    expect(await store().since(CONTRACT_ID, 0)).toEqual({ decisions: [] });
    expect(await store().ownerOf(CONTRACT_ID)).toBe(undefined);
  });

  it('keeps decisions in order, and the meta beside them', async () => {
    const first = [maskedDecision('a'), keptDecision('b')];
    await store().appendDecisions(CONTRACT_ID, first);
    await store().appendDecisions(CONTRACT_ID, [maskedDecision('c')]);
    await store().saveMeta(CONTRACT_ID, contractMeta);
    expect(await store().load(CONTRACT_ID)).toEqual({
      decisions: [...first, maskedDecision('c')],
      meta: contractMeta,
    });
    // Another conversation is untouched.
    expect(await store().load(OTHER)).toEqual({ decisions: [] });
  });

  it('saves a newer meta over the older one', async () => {
    await store().saveMeta(CONTRACT_ID, contractMeta);
    const newer = { ...contractMeta, lastEndedAt: 1_700_000_061_000, lastCachedTokens: 0 };
    await store().saveMeta(CONTRACT_ID, newer);
    expect((await store().load(CONTRACT_ID)).meta).toEqual(newer);
  });

  it('gives, since a count, the decisions after it and the meta', async () => {
    const decisions = [maskedDecision('a'), keptDecision('b'), maskedDecision('c')];
    await store().appendDecisions(CONTRACT_ID, decisions);
    expect(await store().since(CONTRACT_ID, 1)).toEqual({ decisions: decisions.slice(1) });
    await store().saveMeta(CONTRACT_ID, contractMeta);
    expect(await store().since(CONTRACT_ID, 3)).toEqual({ decisions: [], meta: contractMeta });
    expect(await store().since(CONTRACT_ID, 10)).toEqual({ decisions: [], meta: contractMeta });
    await expect(store().since(CONTRACT_ID, -1)).rejects.toThrow(RangeError);
    await expect(store().since(CONTRACT_ID, 1.5)).rejects.toThrow(RangeError);
  });

  it('appends thousands of decisions at once', async () => {
    const records = Array.from({ length: 2_500 }, (_, index) => maskedDecision(`k${index}`, index));
    await store().appendDecisions(CONTRACT_ID, records, 0);
    const loaded = await store().load(CONTRACT_ID);
    expect(loaded.decisions).toHaveLength(2_500);
    expect(loaded.decisions[2_499]).toEqual(records[2_499]);
    await expect(
      store().appendDecisions(CONTRACT_ID, [maskedDecision('late')], 2_499),
    ).rejects.toMatchObject({ count: 2_500 });
  });
}

function describeConditionalAppends(store: () => ConversationStore): void {
  it('appends with expectedCount only when the count matches', async () => {
    await store().appendDecisions(CONTRACT_ID, [maskedDecision('a'), maskedDecision('b')], 0);
    await store().appendDecisions(CONTRACT_ID, [keptDecision('c')], 2);
    const conflict = await store()
      .appendDecisions(CONTRACT_ID, [maskedDecision('x')], 2)
      .catch((error: unknown) => error);
    expect(conflict).toBeInstanceOf(DecisionConflictError);
    expect(conflict).toMatchObject({
      conversationId: CONTRACT_ID,
      count: 3,
      code: 'DECISION_CONFLICT',
    });
    // A check of nothing: passes at the count, conflicts elsewhere, appends nothing either way.
    await store().appendDecisions(CONTRACT_ID, [], 3);
    await expect(store().appendDecisions(CONTRACT_ID, [], 1)).rejects.toMatchObject({ count: 3 });
    await expect(store().appendDecisions(CONTRACT_ID, [], -1)).rejects.toThrow(RangeError);
    expect((await store().load(CONTRACT_ID)).decisions).toEqual([
      maskedDecision('a'),
      maskedDecision('b'),
      keptDecision('c'),
    ]);
  });

  it('lets exactly one of several writers appending at once with one count win', async () => {
    let count = 0;
    for (let round = 0; round < 20; round++) {
      const batches = [0, 1, 2].map((writer) =>
        Array.from({ length: writer + 1 }, (_, index) =>
          keptDecision(`r${round}-${writer}-${index}`),
        ),
      );
      const outcomes = await Promise.all(
        batches.map((batch) =>
          store()
            .appendDecisions(CONTRACT_ID, batch, count)
            .then(
              () => 'won' as const,
              (error: unknown) => error,
            ),
        ),
      );
      const winners = outcomes.flatMap((outcome, writer) => (outcome === 'won' ? [writer] : []));
      expect(winners).toHaveLength(1);
      const winner = winners[0] as number;
      const won = batches[winner] as DecisionRecord[];
      for (const outcome of outcomes.filter((outcome) => outcome !== 'won')) {
        expect(outcome).toBeInstanceOf(DecisionConflictError);
        expect(outcome).toMatchObject({ count: count + won.length });
      }
      // A loser catches up and finds exactly the winner's decisions.
      expect((await store().since(CONTRACT_ID, count)).decisions).toEqual(won);
      count += won.length;
    }
    expect((await store().load(CONTRACT_ID)).decisions).toHaveLength(count);
  });
}

function describeOwners(store: () => ConversationStore): void {
  it('records the first owner claimed, and keeps it', async () => {
    expect(await store().claimOwner(CONTRACT_ID, 'user:alice')).toBe('user:alice');
    expect(await store().claimOwner(CONTRACT_ID, 'user:bob')).toBe('user:alice');
    expect(await store().ownerOf(CONTRACT_ID)).toBe('user:alice');
    const claims = await Promise.all(
      ['user:carol', 'user:dave', 'user:erin'].map((owner) => store().claimOwner(OTHER, owner)),
    );
    expect(new Set(claims).size).toBe(1);
    expect(await store().ownerOf(OTHER)).toBe(claims[0]);
  });

  it('keeps an owner beside the decisions, each untouched by the other', async () => {
    await store().appendDecisions(CONTRACT_ID, [maskedDecision('a')], 0);
    await store().claimOwner(CONTRACT_ID, 'user:alice');
    await store().appendDecisions(CONTRACT_ID, [keptDecision('b')], 1);
    expect(await store().ownerOf(CONTRACT_ID)).toBe('user:alice');
    expect((await store().load(CONTRACT_ID)).decisions).toHaveLength(2);
  });
}

function describeRefusalsAndPrune(store: () => ConversationStore): void {
  it.each(BAD_IDS)('refuses the conversation id %j, and stores nothing for it', async (id) => {
    const calls: Array<() => Promise<unknown>> = [
      () => store().load(id),
      () => store().since(id, 0),
      () => store().appendDecisions(id, [maskedDecision('a')]),
      () => store().saveMeta(id, contractMeta),
      () => store().claimOwner(id, 'user:a'),
      () => store().ownerOf(id),
    ];
    for (const call of calls) await expect(call()).rejects.toThrow('not a conversation id');
  });

  it('never prunes a conversation written since the limit, nor one in use', async () => {
    await store().appendDecisions(CONTRACT_ID, [maskedDecision('a')]);
    await store().saveMeta(CONTRACT_ID, contractMeta);
    await store().claimOwner(CONTRACT_ID, 'user:alice');
    expect(await store().prune(Date.now() - DAY_MS, new Set())).toBe(0);
    expect(await store().prune(Date.now() + DAY_MS, new Set([CONTRACT_ID]))).toBe(0);
    expect(await store().load(CONTRACT_ID)).toEqual({
      decisions: [maskedDecision('a')],
      meta: contractMeta,
    });
    expect(await store().ownerOf(CONTRACT_ID)).toBe('user:alice');
  });
}
