import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseDuration, parseFraction, parseNonNegativeInteger } from './option-parsers.js';

describe('option parsers', () => {
  it('parse good values', () => {
    expect(parseDuration('30d')).toBe(30 * 86_400_000);
    expect(parseDuration('12h')).toBe(12 * 3_600_000);
    expect(parseDuration('2w')).toBe(14 * 86_400_000);
    expect(parseNonNegativeInteger('50,000')).toBe(50_000);
    expect(parseFraction('0.25')).toBe(0.25);
  });

  it('reject bad values', () => {
    for (const [parse, value] of [
      [parseDuration, '30'],
      [parseDuration, '-1d'],
      [parseNonNegativeInteger, '-5'],
      [parseNonNegativeInteger, '1.5'],
      [parseNonNegativeInteger, '_'],
      [parseFraction, '1.5'],
      [parseFraction, ''],
    ] as const) {
      expect(() => parse(value), value).toThrow(InvalidArgumentError);
    }
  });
});
