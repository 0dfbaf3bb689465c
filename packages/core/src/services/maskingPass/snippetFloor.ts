/**
 * The fewest tokens an output's snippet can cost, known before its preview is built: the worth
 * rule (worthMasking.ts) then turns down, unbuilt, an output it would turn down built. On the cold
 * chains three of four outputs a pass tries are not worth a snippet (a few hundred characters,
 * no larger than the snippet's header and read-back line), and building their preview was about
 * half the work of the masked forms (issue 30).
 *
 * Why it is a floor: the default estimator (utils/tokenCalculation.ts) sums, along the response
 * as JSON, a cost of each code unit after the one before it, and no cost is negative. Taking a
 * piece out of the middle of a string leaves every pair outside it and adds one pair across the
 * gap, so the estimate falls by at most the largest pair cost. The snippet without its preview is
 * one such gap (between two new lines, so JSON escapes the rest alike). Another estimator (the
 * bench's `estimateResponseTokens`) has no floor.
 */
import { estimateFunctionResponseTokens } from '../../utils/tokenCalculation.js';
import { PAIR_COST } from '../../utils/tokens/tokenModel.js';
import { formatMaskedSnippet, type MaskedSnippetFields } from '../maskedSnippet.js';

/** What one gap can take off an estimate: the largest pair cost. */
const MAX_PAIR_COST = Math.max(...PAIR_COST);

/**
 * A floor of `estimate({ output: formatMaskedSnippet(fields) })` for every preview, given the
 * snippet's other fields. Undefined for an estimator other than the default one.
 */
export function snippetTokensFloor(
  estimate: (response: unknown) => number,
  fields: Omit<MaskedSnippetFields, 'preview'>,
  readToolName: string | undefined,
  searchToolName: string | undefined,
): number | undefined {
  if (estimate !== estimateFunctionResponseTokens) return undefined;
  const skeleton = formatMaskedSnippet({ ...fields, preview: '' }, readToolName, searchToolName);
  // One gap (the preview), the estimate's rounding up, and a margin for the rounding of its sums
  // of floating-point costs.
  return estimate({ output: skeleton }) - 1.001 - MAX_PAIR_COST;
}
