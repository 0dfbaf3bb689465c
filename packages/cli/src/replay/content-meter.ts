/**
 * Token counts and identity checks for contents, cached by object identity. Strategies keep the
 * entries they do not change as the same objects, so most comparisons are a pointer check and
 * each content is counted and serialized at most once.
 */
import { estimateTokenCountSync } from '@toolmask/core';
import type { Content } from './types.js';

export type ContentTokenCounter = (content: Content) => number;

export const defaultContentTokenCounter: ContentTokenCounter = (content) =>
  estimateTokenCountSync(content.parts ?? []);

export class ContentMeter {
  private readonly tokens = new WeakMap<Content, number>();
  private readonly serialized = new WeakMap<Content, string>();

  constructor(private readonly countTokens: ContentTokenCounter = defaultContentTokenCounter) {}

  tokensOf(content: Content): number {
    let count = this.tokens.get(content);
    if (count === undefined) {
      count = this.countTokens(content);
      this.tokens.set(content, count);
    }
    return count;
  }

  sum(contents: readonly Content[], end = contents.length): number {
    let total = 0;
    for (let index = 0; index < end; index++) total += this.tokensOf(contents[index] as Content);
    return total;
  }

  same(left: Content, right: Content): boolean {
    return left === right || this.serialize(left) === this.serialize(right);
  }

  /** Number of leading contents that are the same in both lists. */
  commonPrefix(previous: readonly Content[], current: readonly Content[]): number {
    const limit = Math.min(previous.length, current.length);
    let index = 0;
    while (index < limit && this.same(previous[index] as Content, current[index] as Content)) {
      index++;
    }
    return index;
  }

  private serialize(content: Content): string {
    let text = this.serialized.get(content);
    if (text === undefined) {
      text = JSON.stringify(content);
      this.serialized.set(content, text);
    }
    return text;
  }
}
