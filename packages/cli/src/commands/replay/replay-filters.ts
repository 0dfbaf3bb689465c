/**
 * `--pricing` and `--since` of `toolmask replay`: whose cache rules price the run (by default the
 * provider the inputs ran against), and which sessions count (those active since a moment).
 */
import { InvalidArgumentError } from 'commander';
import type { LoadedTask } from '../../input/load-task-file.js';
import { PRICING_NAMES, isPricingName, type PricingName } from '../../replay/pricing-names.js';

export function parsePricing(value: string): PricingName {
  const name = value.trim().toLowerCase();
  if (!isPricingName(name)) {
    throw new InvalidArgumentError(`expected one of ${PRICING_NAMES.join(', ')}.`);
  }
  return name;
}

/** `--since`: an age (`30d`, `12h`, `2w`) or a date (`2026-11-01`, any ISO time). */
export interface SinceFilter {
  /** What was given, for messages. */
  text: string;
  /** The cut-off, given the present time. */
  cutoff(now: number): number;
}

const UNIT_MS: Record<string, number> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

export function parseSince(value: string): SinceFilter {
  const text = value.trim();
  const age = /^(\d+)\s*([hdw])$/i.exec(text);
  if (age) {
    const amount = Number(age[1]);
    const unit = UNIT_MS[(age[2] as string).toLowerCase()] as number;
    if (!Number.isSafeInteger(amount * unit))
      throw new InvalidArgumentError('the age is too large.');
    return { text, cutoff: (now) => now - amount * unit };
  }
  const time = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(time)) {
    throw new InvalidArgumentError(
      'expected an age such as 30d, 12h or 2w, or a date such as 2026-11-01.',
    );
  }
  return { text, cutoff: () => time };
}

/**
 * The tasks whose session was active at or after the cut-off (its last recorded moment), and how
 * many were left out: older ones, and those whose file records no time (Content arrays, OpenAI
 * transcripts).
 */
export function filterSince(
  tasks: readonly LoadedTask[],
  cutoff: number,
): { kept: LoadedTask[]; older: number; untimed: number } {
  const kept: LoadedTask[] = [];
  let older = 0;
  let untimed = 0;
  for (const task of tasks) {
    if (task.updatedAt === undefined) untimed++;
    else if (task.updatedAt < cutoff) older++;
    else kept.push(task);
  }
  return { kept, older, untimed };
}

/**
 * The pricing of a run: `--pricing`, else the provider of the inputs (Gemini for inputs that do
 * not say). When inputs ran against several providers, the first one's rules apply and `mixed`
 * names them all (the command warns).
 */
export function choosePricing(
  chosen: PricingName | undefined,
  tasks: readonly LoadedTask[],
): { pricing: PricingName; mixed?: PricingName[] } {
  if (chosen) return { pricing: chosen };
  const providers = [...new Set(tasks.map((task) => task.provider ?? 'gemini'))];
  const pricing = providers[0] ?? 'gemini';
  return providers.length > 1 ? { pricing, mixed: providers } : { pricing };
}
