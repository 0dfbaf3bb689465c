/**
 * PLACEHOLDER owned by the token-estimation helper: synchronous token estimates for history parts.
 * Public API (keep these names and signatures):
 *   estimateTextTokens(text: string): number
 *   estimateFunctionResponseTokens(response: unknown): number   // ~ tokens of JSON.stringify(response)
 *   estimateTokenCountSync(parts: readonly Part[], depth?: number): number
 */
import type { Part } from '@google/gemini-cli-core';

export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / 3);
}

export function estimateFunctionResponseTokens(response: unknown): number {
  try {
    return Math.ceil((JSON.stringify(response) ?? '').length / 3);
  } catch {
    return 0;
  }
}

export function estimateTokenCountSync(parts: readonly Part[], _depth = 0): number {
  let total = 0;
  for (const part of parts) {
    if (typeof part.text === 'string') total += estimateTextTokens(part.text);
    else if (part.functionResponse) total += estimateFunctionResponseTokens(part.functionResponse.response);
    else total += Math.ceil((JSON.stringify(part) ?? '').length / 3);
  }
  return total;
}
