import { describe, expect, it } from 'vitest';
import { formatCount } from './formatCount.js';

describe('formatCount', () => {
  it.each([
    [0, '0'],
    [999, '999'],
    [1000, '1,000'],
    [48213.4, '48,213'],
    [1234567, '1,234,567'],
    [-1234, '-1,234'],
  ])('formats %d as %s', (value, text) => {
    expect(formatCount(value)).toBe(text);
  });
});
