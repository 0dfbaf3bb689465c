/**
 * How big a preview may be: head and tail lines, the longest line shown, the longest section kept
 * whole, and the character budgets of the fallback and of the previews by kind. `PREVIEW_LIMITS`
 * are the defaults, the figures docs/architecture.md gives; the bench varies them through
 * `_internal.tuning.previewLimits` and reads them from `@toolmask/core/tuning`.
 */

export interface PreviewLimits {
  headLines: number;
  tailLines: number;
  shellHeadLines: number;
  shellTailLines: number;
  /** Longer lines are cut in the middle. */
  maxLineChars: number;
  /** Whole sections kept verbatim (errors) are capped at this many characters. */
  maxSectionChars: number;
  /**
   * Characters of lines a preview may show: beyond the head and tail lines, more lines are
   * added from both ends, alternately, while they fit (see `budgetedLines`). 0: head and tail only.
   */
  lineBudgetChars: number;
  /**
   * Characters of lines the preview of an output's kind may show (previews/), their numbers
   * included: fewer than `lineBudgetChars` because every kept line carries its number and a digit
   * is a token of its own, so that both cost about the same tokens. Used only when
   * `lineBudgetChars` is above 0.
   */
  kindBudgetChars: number;
}

/**
 * Preview sizes: small, because every masked output pays for its preview on every later request
 * (docs/benchmarks.md, section 3). Shell logs end with what matters (errors, summaries), so
 * their tail is longer than their head.
 */
export const PREVIEW_LIMITS: Readonly<PreviewLimits> = {
  headLines: 3,
  tailLines: 2,
  shellHeadLines: 2,
  shellTailLines: 4,
  /** Longer lines are cut in the middle. */
  maxLineChars: 80,
  /** Whole sections kept verbatim (errors) are capped at this many characters. */
  maxSectionChars: 2_000,
  lineBudgetChars: 700,
  kindBudgetChars: 600,
} as const;
