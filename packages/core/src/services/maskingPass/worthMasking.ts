/**
 * The rule that decides whether a snippet is worth it: it must shrink the output clearly, by at
 * least `MIN_SAVED_TOKENS` and a quarter of it. An output barely larger than its snippet would
 * cost a file and a preview for nothing, and the model would lose its text. The bench ablates the
 * two figures (`MaskingTuning.minSavedTokens`, `maxKeptRatio`).
 */

/**
 * Masking must shrink the output clearly: at least `MIN_SAVED_TOKENS` and at least a quarter of
 * it. An output barely larger than its snippet costs a file and a preview for nothing.
 */
export const MIN_SAVED_TOKENS = 50;
export const MAX_KEPT_RATIO = 0.75;

export function isWorthMasking(
  tokensBefore: number,
  tokensAfter: number,
  minSavedTokens = MIN_SAVED_TOKENS,
  maxKeptRatio = MAX_KEPT_RATIO,
): boolean {
  return (
    tokensAfter < tokensBefore &&
    tokensBefore - tokensAfter >= minSavedTokens &&
    tokensAfter <= tokensBefore * maxKeptRatio
  );
}
