/**
 * The token model's constants and its pair table: `TOKEN_MODEL` (the fitted ASCII pair costs,
 * the hand-set extras of the non-ASCII classes, the fixed estimates of media and the walk's
 * limits) and, built from it once at load, `PAIR_COST`: what a code unit of each class costs
 * after one of each class. A single cost means little on its own; every estimate is a sum of them
 * along a text (tokenTally.ts).
 */
import { ASCII_CLASS_COUNT, CLASS_COUNT, CharClass } from './tokenClasses.js';

/**
 * All constants of the estimator.
 *
 * `asciiPairCost[previous][current]` (rows and columns in the order of
 * `TOKEN_CLASS_NAMES` in tokenClasses.ts, first seven) is the number of Gemma 3 tokens that a character of class
 * `current` adds after a character of class `previous`. It was fitted by `node
 * bench/fitTokenModel.mjs`: non-negative least squares of the reference token counts on the pair
 * counts, each item's squared error divided by its token count (so that long and short items both
 * matter and the aggregate stays unbiased) plus a tiny ridge term that makes the solution unique,
 * rounded to 3 decimals, on the "fit" half of the recorded sessions in
 * ../shared/traces (every second session of each folder: tool outputs as JSON and model/user text,
 * items of 200+ characters); the other half is held out for the figures in docs/benchmarks.md.
 *
 * Only sums of costs along a text are meaningful: a cost can move between "entering a class" and
 * "leaving it" without changing any total, so single entries should not be read on their own.
 *
 * Non-ASCII characters are rare in that corpus. A non-ASCII letter is costed like an ASCII
 * lower-case letter, any other non-ASCII character like ASCII punctuation, plus a per-character
 * extra set by hand from Gemma 3 counts of short multilingual samples (printed by the bench):
 * CJK text runs at ~0.4-0.65 tokens per character, alphabetic scripts at ~0.3-0.45 per character,
 * symbols at ~1 and emoji at ~1-2 each.
 */
export const TOKEN_MODEL = {
  asciiPairCost: [
    // lower  upper  digit  space  break  quote  punct     (current)
    [0.06, 0.707, 1.119, 0.714, 0.882, 0.691, 0.541], // after lower
    [0.18, 0.29, 0.23, 0.528, 0.62, 1.299, 0.807], // after upper
    [0.544, 3.087, 1.037, 0.681, 1.545, 0.233, 0.479], // after digit
    [0.04, 0, 1.243, 0.045, 0.038, 0, 0], // after space
    [0.669, 0.929, 0.811, 0.951, 0.721, 0.16, 0.105], // after break
    [1.854, 1.402, 1.453, 0, 1.728, 0.072, 0.394], // after quote
    [1.387, 0.66, 1.711, 1.248, 1.31, 0, 0.074], // after punct
  ],
  /** Extra cost of a non-ASCII letter over an ASCII lower-case letter in the same position. */
  letterExtra: 0.12,
  /** Extra cost of a CJK character over ASCII punctuation in the same position. */
  cjkExtra: 0.45,
  /** Extra cost of another BMP non-ASCII character over ASCII punctuation. */
  symbolExtra: 0.1,
  /** Extra cost of a character outside the BMP (surrogate pair) over ASCII punctuation. */
  astralExtra: 0.5,
  /** Fixed estimate for an image part (inlineData / fileData with an image/* MIME type). */
  imageTokens: 3000,
  /** Fixed estimate for a PDF part (~100 pages at 258 tokens a page). */
  pdfTokens: 25_800,
  /** Added to each functionResponse for its name, id and framing. */
  functionResponseOverhead: 10,
  /** Nesting limit for functionResponse.parts inside functionResponse.parts. */
  maxPartDepth: 3,
  /** Nesting limit for objects and arrays inside a response value. */
  maxValueDepth: 64,
} as const;

/**
 * For each class: the ASCII class whose pair costs it borrows, and the extra cost it adds when it
 * is the current class. Exported for the fitting script.
 */
export const TOKEN_CLASS_ALIAS: readonly number[] = [];
export const TOKEN_CLASS_EXTRA: readonly number[] = [];
const ALIAS = TOKEN_CLASS_ALIAS as number[];
const EXTRA = TOKEN_CLASS_EXTRA as number[];
for (let cls = 0; cls < CLASS_COUNT; cls++) {
  ALIAS[cls] =
    cls < ASCII_CLASS_COUNT ? cls : cls === CharClass.LETTER ? CharClass.LOWER : CharClass.PUNCT;
  EXTRA[cls] =
    cls === CharClass.LETTER
      ? TOKEN_MODEL.letterExtra
      : cls === CharClass.CJK
        ? TOKEN_MODEL.cjkExtra
        : cls === CharClass.SYMBOL
          ? TOKEN_MODEL.symbolExtra
          : cls === CharClass.ASTRAL
            ? TOKEN_MODEL.astralExtra
            : 0;
}

/** Pair cost table, index `previous * CLASS_COUNT + current`. */
export const PAIR_COST = new Float64Array(CLASS_COUNT * CLASS_COUNT);
for (let prev = 0; prev < CLASS_COUNT; prev++) {
  for (let cur = 0; cur < CLASS_COUNT; cur++) {
    PAIR_COST[prev * CLASS_COUNT + cur] =
      cur === CharClass.ASTRAL_TAIL // already paid for by its high surrogate
        ? 0
        : (TOKEN_MODEL.asciiPairCost[ALIAS[prev] as number]?.[ALIAS[cur] as number] ?? 0) +
          (EXTRA[cur] as number);
  }
}
