import type { Content } from '@toolmask/core';
import { describe, expect, it } from 'vitest';
import { groupToolRuns, type ToolRunCache } from './tool-runs.js';

const result = (id: string): Content => ({
  role: 'user',
  parts: [{ functionResponse: { id, name: 'run_shell_command', response: { output: id } } }],
});
const text = (role: string, value: string): Content => ({ role, parts: [{ text: value }] });

describe('groupToolRuns', () => {
  const contents = [
    text('user', 'go'),
    text('model', 'calls'),
    result('a'),
    result('b'),
    result('c'),
  ];

  it('makes one entry of consecutive tool results, and splits the same objects back', () => {
    const cache: ToolRunCache = new WeakMap();
    const grouped = groupToolRuns(contents, cache);
    expect(grouped.contents).toHaveLength(3);
    expect(grouped.contents[2]!.parts!.map((part) => part.functionResponse!.id)).toEqual([
      'a',
      'b',
      'c',
    ]);
    const back = grouped.ungroup(grouped.contents);
    expect(back).toHaveLength(5);
    back.forEach((content, index) => expect(content).toBe(contents[index]));
    // The same members next time: the same group object (core's caches key on it).
    expect(groupToolRuns(contents, cache).contents[2]).toBe(grouped.contents[2]);
  });

  it('a part the pass replaced comes back in its own entry; the others are untouched', () => {
    const grouped = groupToolRuns(contents, new WeakMap());
    const group = grouped.contents[2]!;
    const masked = {
      functionResponse: { id: 'b', name: 'run_shell_command', response: { output: 'snippet' } },
    };
    const sent = [
      ...grouped.contents.slice(0, 2),
      { ...group, parts: [group.parts![0]!, masked, group.parts![2]!] },
    ];
    const back = grouped.ungroup(sent);
    expect(back[2]).toBe(contents[2]);
    expect(back[3]).toEqual({ ...contents[3], parts: [masked] });
    expect(back[4]).toBe(contents[4]);
  });

  it('leaves a history without runs as it is (the Gemini shape)', () => {
    const single = [text('user', 'go'), text('model', 'calls'), result('a')];
    const grouped = groupToolRuns(single, new WeakMap());
    expect(grouped.contents).toEqual(single);
    grouped.contents.forEach((content, index) => expect(content).toBe(single[index]));
  });

  it('splits back a run of 200,000 results (more than a call takes as arguments)', () => {
    const run = Array.from({ length: 200_000 }, (_, index) => result(`r${index}`));
    const contents = [text('user', 'go'), text('model', 'calls'), ...run];
    const grouped = groupToolRuns(contents, new WeakMap());
    expect(grouped.contents).toHaveLength(3);
    const back = grouped.ungroup(grouped.contents);
    expect(back).toHaveLength(contents.length);
    expect(back[199_999 + 2]).toBe(run[199_999]);
    // One result masked: the others come back as the same objects, the masked one as new.
    const masked = { ...grouped.contents[2]!, parts: grouped.contents[2]!.parts!.slice() };
    masked.parts[5] = { text: 'masked' };
    const partly = grouped.ungroup([grouped.contents[0]!, grouped.contents[1]!, masked]);
    expect(partly).toHaveLength(contents.length);
    expect(partly[2 + 4]).toBe(run[4]);
    expect(partly[2 + 5]).toEqual({ ...run[5], parts: [{ text: 'masked' }] });
  });
});
