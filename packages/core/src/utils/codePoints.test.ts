import { describe, expect, it } from 'vitest';
import {
  boundaryAtOrAfter,
  boundaryAtOrBefore,
  headOf,
  sliceCodePoints,
  splitsPair,
  tailOf,
} from './codePoints.js';

const isWellFormed = (text: string) =>
  (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/** Pairs (emoji, a CJK extension B character) at odd and even positions, BMP text between. */
const TEXT = 'a😀b😀😀é𠀀xy😀';

describe('cutting on code-point boundaries', () => {
  it('knows which positions fall inside a pair', () => {
    const inside: number[] = [];
    let at = 0;
    for (const char of TEXT) {
      if (char.length === 2) inside.push(at + 1);
      at += char.length;
    }
    for (let index = 0; index <= TEXT.length; index++) {
      expect(splitsPair(TEXT, index), `position ${index}`).toBe(inside.includes(index));
    }
    expect(inside.length).toBeGreaterThan(4);
  });

  it('head, tail and slices are well-formed at every cut position, and never longer than asked', () => {
    for (let cut = 0; cut <= TEXT.length + 1; cut++) {
      const head = headOf(TEXT, cut);
      const tail = tailOf(TEXT, cut);
      expect(isWellFormed(head) && isWellFormed(tail), `cut ${cut}`).toBe(true);
      expect(head.length).toBeLessThanOrEqual(cut);
      expect(head.length).toBeGreaterThanOrEqual(Math.min(cut, TEXT.length) - 1);
      expect(tail.length).toBeLessThanOrEqual(cut);
      expect(TEXT.startsWith(head) && TEXT.endsWith(tail)).toBe(true);
      for (let end = cut; end <= TEXT.length; end++) {
        expect(isWellFormed(sliceCodePoints(TEXT, cut, end)), `${cut}..${end}`).toBe(true);
      }
    }
  });

  it('consecutive slices tile the text exactly, whatever the chunk size', () => {
    for (let size = 1; size <= 5; size++) {
      const chunks: string[] = [];
      for (let start = 0; start < TEXT.length; start += size) {
        chunks.push(sliceCodePoints(TEXT, start, start + size));
      }
      expect(chunks.join('')).toBe(TEXT);
      expect(chunks.every(isWellFormed)).toBe(true);
    }
  });

  it('moves a cut inside a pair back or forward by one, and leaves other positions alone', () => {
    expect(boundaryAtOrBefore(TEXT, 2)).toBe(1);
    expect(boundaryAtOrAfter(TEXT, 2)).toBe(3);
    expect(boundaryAtOrBefore(TEXT, 3)).toBe(3);
    expect(boundaryAtOrAfter(TEXT, 0)).toBe(0);
    expect(boundaryAtOrBefore(TEXT, TEXT.length)).toBe(TEXT.length);
  });

  it('leaves lone surrogates of the text itself alone', () => {
    const lone = 'ab\ud800cd\udc00';
    expect(headOf(lone, 3)).toBe('ab\ud800');
    expect(tailOf(lone, 1)).toBe('\udc00');
  });
});
