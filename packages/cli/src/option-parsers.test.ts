import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  parseDuration,
  parseFraction,
  parseNonNegativeInteger,
  parsePositiveInteger,
} from './option-parsers.js';
import { runCliCaptured } from './test-data/run-cli.js';

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

  it('one message for every value that is not a positive integer (--concat -1, 0, abc)', async () => {
    for (const value of ['-1', '0', 'abc', '1.5']) {
      expect(() => parsePositiveInteger(value), value).toThrow(
        'expected a positive integer (1 or more).',
      );
      const run = await runCliCaptured(['replay', '--concat', value]);
      expect(run.code, value).toBe(2);
      expect(run.stderr, value).toContain(
        `argument '${value}' is invalid. expected a positive integer (1 or more).`,
      );
    }
    expect(parsePositiveInteger('8')).toBe(8);
  });
});
