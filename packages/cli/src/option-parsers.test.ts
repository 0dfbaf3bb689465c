import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  parseDuration,
  parseFraction,
  parseNonNegativeInteger,
  parsePort,
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

  it('a port is 0 to 65535; a duration at most 100 years', () => {
    expect(parsePort('0')).toBe(0);
    expect(parsePort('65535')).toBe(65_535);
    for (const value of ['65536', '99999', '-1', 'abc', '80.5']) {
      expect(() => parsePort(value), value).toThrow(
        'expected a port from 0 to 65535 (0 picks a free one).',
      );
    }
    expect(parseDuration('36500d')).toBe(36_500 * 86_400_000);
    expect(() => parseDuration('36501d')).toThrow(InvalidArgumentError);
    expect(() => parseDuration(`${'9'.repeat(400)}s`)).toThrow(InvalidArgumentError);
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
