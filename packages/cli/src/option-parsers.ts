/** Parsers for option values; a bad value is a usage error (exit 2) naming the option. */
import { InvalidArgumentError } from 'commander';

/** A whole number written with digits (and `_` or `,` separators), or undefined. */
function wholeNumber(value: string): number | undefined {
  if (!/^\s*\d[\d_,]*\s*$/.test(value)) return undefined;
  const number = Number(value.replace(/[_,]/g, ''));
  return Number.isSafeInteger(number) ? number : undefined;
}

export function parseNonNegativeInteger(value: string): number {
  const number = wholeNumber(value);
  if (number === undefined) throw new InvalidArgumentError('expected a non-negative integer.');
  return number;
}

/** 1 or more; the message is the same for 0, -1 and `abc`. */
export function parsePositiveInteger(value: string): number {
  const number = wholeNumber(value);
  if (number === undefined || number < 1) {
    throw new InvalidArgumentError('expected a positive integer (1 or more).');
  }
  return number;
}

/**
 * A whole number from `min` to `max`, for options whose value is used in arithmetic or handed to
 * Node (a port, a byte count, days): a value the parser let through must never turn into a
 * RangeError, an invalid date or a silent overflow further on. `describe` names what is expected.
 */
export function integerInRange(
  min: number,
  max: number,
  describe: string,
): (value: string) => number {
  return (value) => {
    const number = wholeNumber(value);
    if (number === undefined || number < min || number > max) {
      throw new InvalidArgumentError(`expected ${describe}.`);
    }
    return number;
  };
}

/** A TCP port: 0 (the system picks a free one) to 65535. */
export const parsePort = integerInRange(0, 65_535, 'a port from 0 to 65535 (0 picks a free one)');

export function parseFraction(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0 || number > 1) {
    throw new InvalidArgumentError('expected a number from 0 to 1.');
  }
  return number;
}

export function parseNameList(value: string): string[] {
  return value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
}

const UNIT_MS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** Longest duration: 100 years, well inside what a `Date` can hold either side of now. */
const MAX_DURATION_MS = 36_500 * 86_400_000;

/** `30d`, `12h`, `90m`, `45s`, `2w` to milliseconds. */
export function parseDuration(value: string): number {
  const match = /^\s*(\d+)\s*([smhdw])\s*$/i.exec(value);
  if (!match) throw new InvalidArgumentError('expected a duration such as 30d, 12h, 90m or 2w.');
  const milliseconds = Number(match[1]) * (UNIT_MS[(match[2] as string).toLowerCase()] as number);
  if (!(milliseconds <= MAX_DURATION_MS)) {
    throw new InvalidArgumentError('expected a duration of at most 100 years (36500d).');
  }
  return milliseconds;
}
