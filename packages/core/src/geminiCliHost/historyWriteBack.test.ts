import { describe, expect, test } from 'vitest';
import type { Content, HistoryTurn, Part } from '@google/gemini-cli-core';
import {
  applyPartReplacements,
  collectPartReplacements,
  writeBackMaskedHistory,
} from './historyWriteBack.js';

function call(id: string, name = 'run_shell_command'): Part {
  return { functionCall: { id, name, args: {} } };
}
function response(id: string, output: string, name = 'run_shell_command'): Part {
  return { functionResponse: { id, name, response: { output } } };
}
function masked(part: Part): Part {
  return {
    ...part,
    functionResponse: {
      ...part.functionResponse,
      response: { output: '<tool_output_masked ...>' },
    },
  };
}

/** A live chat as core keeps it: turns with ids; `getHistory()` would merge and copy them. */
function fakeChat(turns: HistoryTurn[]) {
  const chat = {
    turns,
    setCalls: [] as HistoryTurn[][],
    agentHistory: {
      get: () => chat.turns,
      set: (next: HistoryTurn[]) => {
        chat.setCalls.push(next);
        chat.turns = [...next];
      },
    },
  };
  return chat;
}

function setUp() {
  const r1 = response('c1', 'a'.repeat(1000));
  const r2a = response('c2', 'b'.repeat(1000));
  const r2b = response('c3', 'c'.repeat(1000), 'read_file');
  const turns: HistoryTurn[] = [
    { id: 't0', content: { role: 'user', parts: [{ text: 'fix the bug' }] } },
    { id: 't1', content: { role: 'model', parts: [{ text: 'look', thought: true }, call('c1')] } },
    { id: 't2', content: { role: 'user', parts: [r1] } },
    { id: 't3', content: { role: 'model', parts: [call('c2'), call('c3', 'read_file')] } },
    { id: 't4', content: { role: 'user', parts: [r2a, r2b] } },
    { id: 't5', content: { role: 'model', parts: [{ text: 'done' }] } },
  ];
  // What getHistory() returns: copies of the turns (thoughts stripped) sharing the part objects.
  const view: Content[] = turns.map((turn) => ({
    ...turn.content,
    parts: (turn.content.parts ?? []).filter((p) => !p.thought),
  }));
  return { turns, view, r1, r2a, r2b };
}

describe('writeBackMaskedHistory', () => {
  test('replaces only the masked parts, in the turns that hold them, keeping every turn id', () => {
    const { turns, view, r1, r2b } = setUp();
    const chat = fakeChat(turns);
    const newHistory = [...view];
    newHistory[2] = { ...view[2]!, parts: [masked(r1)] };
    newHistory[4] = { ...view[4]!, parts: [view[4]!.parts![0]!, masked(r2b)] };

    const result = writeBackMaskedHistory(chat, view, {
      newHistory,
      changedIndices: [2, 4],
      maskedCount: 2,
    });
    expect(result).toEqual({
      written: true,
      turnsChanged: 2,
      partsReplaced: 2,
      refused: 0,
      missed: 0,
    });
    expect(chat.setCalls).toHaveLength(1);
    const written = chat.setCalls[0]!;
    expect(written.map((t) => t.id)).toEqual(['t0', 't1', 't2', 't3', 't4', 't5']);
    // Untouched turns are the very same objects (thought parts included).
    for (const index of [0, 1, 3, 5]) expect(written[index]).toBe(turns[index]);
    expect(written[2]!.content.parts).toEqual([masked(r1)]);
    expect(written[4]!.content.parts![0]).toBe(turns[4]!.content.parts![0]);
    expect(written[4]!.content.parts![1]).toEqual(masked(r2b));
  });

  test('nothing masked: nothing written', () => {
    const { turns, view } = setUp();
    const chat = fakeChat(turns);
    expect(
      writeBackMaskedHistory(chat, view, { newHistory: view, changedIndices: [], maskedCount: 0 })
        .written,
    ).toBe(false);
    expect(chat.setCalls).toHaveLength(0);
  });

  test('refuses a replacement that would change the id or name, or drop the response', () => {
    const { turns, view, r1, r2a, r2b } = setUp();
    const chat = fakeChat(turns);
    const newHistory = [...view];
    newHistory[2] = {
      ...view[2]!,
      parts: [{ functionResponse: { ...r1.functionResponse, id: 'other' } }],
    };
    newHistory[4] = { ...view[4]!, parts: [{ text: r2a.functionResponse!.id! }, r2b] };
    const result = writeBackMaskedHistory(chat, view, {
      newHistory,
      changedIndices: [2, 4],
      maskedCount: 2,
    });
    expect(result).toMatchObject({ written: false, refused: 2 });
    expect(chat.setCalls).toHaveLength(0);
  });

  test('a changed part count is refused as a whole', () => {
    const { view, r2a } = setUp();
    const { replacements, refused } = collectPartReplacements(view, {
      newHistory: view.map((c, i) => (i === 4 ? { ...c, parts: [masked(r2a)] } : c)),
      changedIndices: [4],
    });
    expect(replacements.size).toBe(0);
    expect(refused).toBe(2);
  });

  test('indices past the history (a pending request appended by the caller) are ignored', () => {
    const { turns, view } = setUp();
    const chat = fakeChat(turns);
    const pending = { role: 'user', parts: [response('c9', 'z'.repeat(10))] };
    const result = writeBackMaskedHistory(chat, view, {
      newHistory: [...view, { ...pending, parts: [masked(pending.parts[0]!)] }],
      changedIndices: [view.length],
      maskedCount: 1,
    });
    expect(result.written).toBe(false);
  });

  test('a part no longer in the live history is counted as missed', () => {
    const { turns, view, r1 } = setUp();
    const chat = fakeChat(turns.filter((t) => t.id !== 't2'));
    const newHistory = view.map((c, i) => (i === 2 ? { ...c, parts: [masked(r1)] } : c));
    const result = writeBackMaskedHistory(chat, view, {
      newHistory,
      changedIndices: [2],
      maskedCount: 1,
    });
    expect(result).toMatchObject({ written: false, missed: 1 });
  });

  test('merged view entries (coalesced user turns) map back to their own turns', () => {
    const a = response('c1', 'a'.repeat(100));
    const b = response('c2', 'b'.repeat(100));
    const turns: HistoryTurn[] = [
      { id: 'u1', content: { role: 'user', parts: [a] } },
      { id: 'u2', content: { role: 'user', parts: [b] } },
    ];
    // core coalesces consecutive same-role turns in getHistory(): one entry, both parts.
    const view: Content[] = [{ role: 'user', parts: [a, b] }];
    const { turns: next, turnsChanged } = applyPartReplacements(
      turns,
      collectPartReplacements(view, {
        newHistory: [{ role: 'user', parts: [a, masked(b)] }],
        changedIndices: [0],
      }).replacements,
    );
    expect(turnsChanged).toBe(1);
    expect(next[0]).toBe(turns[0]);
    expect(next[1]).toEqual({ id: 'u2', content: { role: 'user', parts: [masked(b)] } });
  });
});
