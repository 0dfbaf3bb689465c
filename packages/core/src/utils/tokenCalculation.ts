/**
 * Synchronous token estimates for history parts, calibrated against the Gemma 3 tokenizer.
 *
 * Model. Every UTF-16 code unit of the text that would be sent (for a function response: of
 * `JSON.stringify(response)`, without building that string) falls into one of a few character
 * classes, and costs a fractional number of tokens that depends on its class AND on the class of
 * the code unit before it. That single pair table captures what a BPE tokenizer does with text
 * and code: a letter after a letter usually continues the current token (cheap), a letter after
 * punctuation starts a new one (about one token), every digit is its own token in Gemma 3, a run
 * of spaces collapses into one token, `\n` inside JSON costs its backslash and its letter, and so
 * on. The estimate is the sum of the pair costs, computed in one `charCodeAt` loop with two table
 * look-ups per code unit (hundreds of MB/s).
 *
 * The ASCII part of the table (7 x 7 classes) is fitted, the non-ASCII costs are set by hand; see
 * {@link TOKEN_MODEL} for how. A giant string (over `SAMPLED_ABOVE_UNITS` code units) is estimated
 * from 32 evenly spaced windows of it, scaled to its length. Accuracy and speed are measured by
 * `node bench/tokenAccuracy.mjs` (docs/benchmarks.md, section 2).
 *
 * This file is the estimator's face: its estimates of texts, responses and parts, and the model's
 * tables the benchmarks fit (`@toolmask/core/estimator`). The parts: tokens/tokenClasses.ts (the
 * character classes), tokens/tokenModel.ts (the costs), tokens/tokenTally.ts (the running sum, the
 * hot loops and the sampling of giant strings), tokens/jsonValueTokens.ts (a value as JSON).
 */
import type { Part } from '@google/gemini-cli-core';
import { feedJsonValue } from './tokens/jsonValueTokens.js';
import { TOKEN_MODEL } from './tokens/tokenModel.js';
import { newTally, plainTextTokens } from './tokens/tokenTally.js';

export { TOKEN_CLASS_NAMES, tokenCharClass } from './tokens/tokenClasses.js';
export { TOKEN_CLASS_ALIAS, TOKEN_CLASS_EXTRA, TOKEN_MODEL } from './tokens/tokenModel.js';

/** Estimated Gemma 3 token count of a text. */
export function estimateTextTokens(text: string): number {
  if (typeof text !== 'string' || text.length === 0) return 0;
  return Math.ceil(plainTextTokens(text));
}

/**
 * ~ token count of JSON.stringify(response), computed WITHOUT building that string: the value is
 * walked, strings are counted in place with their JSON escapes, keys and punctuation are fed as
 * JSON.stringify would write them. Never throws: cycles are cut, nesting deeper than
 * {@link TOKEN_MODEL}.maxValueDepth is not counted, BigInt counts its digits, a toJSON or getter
 * that throws drops its value, undefined/functions/symbols are left out as JSON.stringify does.
 */
export function estimateFunctionResponseTokens(response: unknown): number {
  try {
    const t = newTally();
    feedJsonValue(t, response, '', [], 0);
    return Math.ceil(t.tokens);
  } catch {
    return 0; // unreachable in practice (e.g. stack exhausted by a hostile Proxy)
  }
}

function mediaTokens(mimeType: unknown): number | undefined {
  if (typeof mimeType !== 'string') return undefined;
  if (mimeType.startsWith('image/')) return TOKEN_MODEL.imageTokens;
  if (mimeType.startsWith('application/pdf')) return TOKEN_MODEL.pdfTokens;
  return undefined;
}

function estimatePartTokens(part: Part, depth: number): number {
  if (part === null || typeof part !== 'object') return 0;
  if (typeof part.text === 'string') return estimateTextTokens(part.text);
  const fr = part.functionResponse;
  if (fr) {
    let total = TOKEN_MODEL.functionResponseOverhead;
    if (fr.response !== undefined) total += estimateFunctionResponseTokens(fr.response);
    const nested = fr.parts;
    if (Array.isArray(nested) && nested.length > 0) {
      total += estimateTokenCountSync(nested as Part[], depth + 1);
    }
    return total;
  }
  const media = mediaTokens(part.inlineData?.mimeType ?? part.fileData?.mimeType);
  if (media !== undefined) return media;
  // functionCall, executableCode, codeExecutionResult, other media: their JSON size.
  return estimateFunctionResponseTokens(part);
}

/**
 * Total estimated tokens of a list of gemini Parts: text parts by their text, functionResponse
 * parts by their response plus a small fixed overhead (nested functionResponse.parts are recursed
 * up to {@link TOKEN_MODEL}.maxPartDepth levels), images and PDFs by fixed estimates, any other
 * part by its JSON. The total is the sum of the per-part (integer) estimates.
 */
export function estimateTokenCountSync(parts: readonly Part[], depth = 0): number {
  if (depth > TOKEN_MODEL.maxPartDepth || !Array.isArray(parts)) return 0;
  let total = 0;
  for (const part of parts) total += estimateOnePart(part, depth);
  return total;
}

/** `estimateTokenCountSync([part])`, without the array: what the ledger asks of every part. */
export function estimatePartTokensSync(part: Part): number {
  return estimateOnePart(part, 0);
}

function estimateOnePart(part: Part, depth: number): number {
  try {
    return estimatePartTokens(part, depth);
  } catch {
    // A hostile part (throwing getters on the part itself): count nothing for it.
    return 0;
  }
}
