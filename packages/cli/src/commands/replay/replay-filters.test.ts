import { describe, expect, it } from 'vitest';
import type { LoadedTask } from '../../input/load-task-file.js';
import { choosePricing, filterSince, parsePricing, parseSince } from './replay-filters.js';

const task = (updatedAt: number | undefined, provider?: LoadedTask['provider']): LoadedTask => ({
  file: 'f',
  label: 'f',
  format: 'claude-code',
  contents: [],
  warnings: [],
  ...(provider ? { provider } : {}),
  ...(updatedAt !== undefined ? { updatedAt } : {}),
});

describe('--since', () => {
  const now = Date.parse('2026-12-01T00:00:00Z');
  it('takes an age or a date', () => {
    expect(parseSince('30d').cutoff(now)).toBe(Date.parse('2026-11-01T00:00:00Z'));
    expect(parseSince('12h').cutoff(now)).toBe(now - 12 * 3_600_000);
    expect(parseSince('2w').cutoff(now)).toBe(Date.parse('2026-11-17T00:00:00Z'));
    expect(parseSince('2026-11-15').cutoff(now)).toBe(Date.parse('2026-11-15'));
    expect(() => parseSince('last month')).toThrow(/expected an age such as 30d/);
  });

  it('keeps sessions active since the cut-off; counts older and untimed ones', () => {
    const cutoff = Date.parse('2026-11-01');
    const result = filterSince([task(cutoff - 1), task(cutoff), task(undefined)], cutoff);
    expect(result.kept).toHaveLength(1);
    expect(result).toMatchObject({ older: 1, untimed: 1 });
  });
});

describe('--pricing', () => {
  it('is one of the three providers', () => {
    expect(parsePricing('Anthropic')).toBe('anthropic');
    expect(() => parsePricing('azure')).toThrow('expected one of anthropic, openai, gemini.');
  });

  it("defaults to the inputs' provider, and says when they differ", () => {
    expect(choosePricing(undefined, [task(1, 'anthropic')])).toEqual({ pricing: 'anthropic' });
    expect(choosePricing(undefined, [task(1)])).toEqual({ pricing: 'gemini' });
    expect(choosePricing('openai', [task(1, 'anthropic')])).toEqual({ pricing: 'openai' });
    expect(choosePricing(undefined, [task(1, 'openai'), task(1, 'anthropic')]).mixed).toHaveLength(
      2,
    );
  });
});
