/**
 * `@toolmask/core/estimator`: the synchronous token estimator and its model, for the benchmarks
 * that measure it against a reference tokenizer and fit its table (bench/tokenAccuracy.mjs,
 * bench/fitTokenModel.mjs). Hosts need only `estimateTokenCountSync` from the main entry.
 */
export {
  estimateTextTokens,
  estimateFunctionResponseTokens,
  estimateTokenCountSync,
  tokenCharClass,
  TOKEN_MODEL,
  TOKEN_CLASS_NAMES,
  TOKEN_CLASS_ALIAS,
  TOKEN_CLASS_EXTRA,
} from '../utils/tokenCalculation.js';
