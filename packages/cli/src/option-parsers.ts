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

/** `30d`, `12h`, `90m`, `45s`, `2w` to milliseconds. */
export function parseDuration(value: string): number {
  const match = /^\s*(\d+)\s*([smhdw])\s*$/i.exec(value);
  if (!match) throw new InvalidArgumentError('expected a duration such as 30d, 12h, 90m or 2w.');
  return Number(match[1]) * (UNIT_MS[(match[2] as string).toLowerCase()] as number);
}
