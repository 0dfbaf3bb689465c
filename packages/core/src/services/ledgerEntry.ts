/**
 * One entry of the history ledger (historyLedger.ts) measured: its countable tool outputs (their
 * estimates and what their snippets would keep), the estimated prompt tokens of all its parts,
 * and who wrote it. An entry of a few parts is measured at once; one of many thousand parallel
 * tool results in steps, so that a caller can give the event loop turns inside it. The ledger
 * looks at the clock after a stretch of parts or of tokens, not after every entry.
 */
import type { Content, Part } from './maskingTypes.js';
import { estimatePartTokensSync } from '../utils/tokenCalculation.js';
import { keptTokensOf } from './snippetCost.js';

/** One countable output of an entry. */
export interface CountedOutput {
  partIndex: number;
  tokens: number;
  /** Estimated tokens its snippet would keep (snippetCost.ts). */
  kept: number;
}

export interface EntrySummary {
  /** Countable outputs up to the size limit, in part order. */
  outputs: readonly CountedOutput[];
  /** Countable outputs above the size limit (masked whatever their position). */
  oversized: readonly CountedOutput[];
  /** Sum of `outputs` tokens. */
  tokens: number;
  /** Sum of `outputs` kept tokens: what their snippets would still cost. */
  kept: number;
}

export const EMPTY_SUMMARY: EntrySummary = { outputs: [], oversized: [], tokens: 0, kept: 0 };

/** What the ledger keeps of an entry: its summary, its prompt tokens, who wrote it. */
export interface EntryRecord {
  summary: EntrySummary;
  promptTokens: number;
  fromModel: boolean;
}

/** Measures a part: tokens of a countable tool output, or undefined (not one, exempt, masked). */
export type MeasurePart = (part: Part) => number | undefined;

/**
 * When the ledger looks at the clock (a step of its work ends): after this many parts, or after
 * parts of this many estimated tokens (a few hundred KB of text, about a millisecond's walk), or
 * of this many characters of plain text, whichever comes first. Not after every entry: most
 * entries are a part or two, and a look per entry cost more than the entry. The characters count
 * apart because a plain text's estimate is no measure of its walk: some texts cost no token a
 * character (` ."` repeated), while a value walked as JSON costs at least a fortieth.
 */
export const PARTS_PER_LOOK = 64;
const TOKENS_PER_LOOK = 50_000;
const TEXT_UNITS_PER_LOOK = 1 << 18;

/** An entry's parts as they are measured, then its record. */
class EntryTally {
  outputs: CountedOutput[] | undefined;
  oversized: CountedOutput[] | undefined;
  tokens = 0;
  kept = 0;
  promptTokens = 0;
  /** Code units of the plain texts measured (`text` parts). */
  textUnits = 0;

  constructor(
    private readonly measure: MeasurePart,
    private readonly maxOutputTokens: number,
  ) {}

  /** Measures parts [from, to) of `parts`; returns their estimated tokens (the work done). */
  add(parts: readonly Part[], from: number, to: number): number {
    const before = this.promptTokens;
    for (let partIndex = from; partIndex < to; partIndex++) {
      const part = parts[partIndex];
      const measured = part?.functionResponse ? this.measure(part) : undefined;
      if (measured === undefined) {
        // Not a countable output (text, a call, a snippet, an exempt output): its size all the same.
        if (part) this.promptTokens += estimatePartTokensSync(part);
        if (typeof part?.text === 'string') this.textUnits += part.text.length;
        continue;
      }
      this.promptTokens += measured;
      const keeps = keptTokensOf(part as Part, measured);
      const counted = { partIndex, tokens: measured, kept: keeps };
      if (measured > this.maxOutputTokens) {
        (this.oversized ??= []).push(counted);
      } else {
        (this.outputs ??= []).push(counted);
        this.tokens += measured;
        this.kept += keeps;
      }
    }
    return this.promptTokens - before;
  }

  summary(): EntrySummary {
    if (!this.outputs && !this.oversized) return EMPTY_SUMMARY;
    return {
      outputs: this.outputs ?? [],
      oversized: this.oversized ?? [],
      tokens: this.tokens,
      kept: this.kept,
    };
  }
}

/** Work since the ledger last looked at the clock (see `PARTS_PER_LOOK`). */
export interface Stretch {
  parts: number;
  tokens: number;
  /** Code units of plain text walked. */
  textUnits: number;
}

export const stretchDone = (stretch: Stretch): boolean =>
  stretch.parts >= PARTS_PER_LOOK ||
  stretch.tokens >= TOKENS_PER_LOOK ||
  stretch.textUnits >= TEXT_UNITS_PER_LOOK;

export const newStretch = (): Stretch => ({ parts: 0, tokens: 0, textUnits: 0 });

/** A new stretch begins (the ledger just looked at the clock). */
export function restartStretch(stretch: Stretch): void {
  stretch.parts = 0;
  stretch.tokens = 0;
  stretch.textUnits = 0;
}

/** The record of `content` when it has few parts (measured at once); undefined otherwise. */
export function smallEntryRecord(
  content: Content,
  measure: MeasurePart,
  maxOutputTokens: number,
  stretch: Stretch,
): EntryRecord | undefined {
  const fromModel = content?.role === 'model';
  const parts = content?.parts;
  if (!Array.isArray(parts)) {
    stretch.parts++;
    return { summary: EMPTY_SUMMARY, promptTokens: 0, fromModel };
  }
  if (parts.length > PARTS_PER_LOOK) return undefined;
  const tally = new EntryTally(measure, maxOutputTokens);
  stretch.tokens += tally.add(parts, 0, parts.length);
  stretch.parts += Math.max(1, parts.length);
  stretch.textUnits += tally.textUnits;
  return { summary: tally.summary(), promptTokens: tally.promptTokens, fromModel };
}

/**
 * The steps of measuring an entry of many parts (many thousand parallel tool results): yields
 * (nothing) whenever the stretch has done its work, so that a caller can give the event loop a
 * turn there; returns the record.
 */
export function* largeEntryRecord(
  content: Content,
  measure: MeasurePart,
  maxOutputTokens: number,
  stretch: Stretch,
): Generator<void, EntryRecord> {
  const fromModel = content?.role === 'model';
  const parts = (content?.parts ?? []) as readonly Part[];
  const tally = new EntryTally(measure, maxOutputTokens);
  for (let from = 0; from < parts.length; from += PARTS_PER_LOOK) {
    if (stretchDone(stretch)) {
      yield;
      restartStretch(stretch);
    }
    const to = Math.min(parts.length, from + PARTS_PER_LOOK);
    const textUnits = tally.textUnits;
    stretch.tokens += tally.add(parts, from, to);
    stretch.parts += to - from;
    stretch.textUnits += tally.textUnits - textUnits;
  }
  return { summary: tally.summary(), promptTokens: tally.promptTokens, fromModel };
}
