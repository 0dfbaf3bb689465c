/**
 * A usage record's net figures: what its prompt billed, as the provider reported it, and what it
 * would have billed without masking (the record's counterfactual: net-billing.ts), both in
 * input-token equivalents at its provider's relative prices (core's `CACHE_ECONOMICS`, by the
 * front it came through). Undefined for a record the provider sent no cache figures for (a read
 * count): its bill cannot be told apart from what the cache would have saved.
 */
import { CACHE_ECONOMICS, type CacheEconomics } from '@toolmask/core';
import { promptCost, type PriceRow } from './model-prices.js';
import { billedTokens } from './net-billing.js';
import type { RequestSource, UsageRecord } from './usage-record.js';

export type Provider = keyof typeof CACHE_ECONOMICS;

/** The provider whose cache rules a front's requests are billed by. */
export function providerOf(front: RequestSource): Provider {
  switch (front) {
    case 'anthropic':
      return 'anthropic';
    case 'openai':
    case 'openai-responses':
      return 'openai';
    default:
      return 'gemini';
  }
}

export function economicsOf(front: RequestSource): Readonly<CacheEconomics> {
  return CACHE_ECONOMICS[providerOf(front)];
}

export interface RecordNet {
  billed: number;
  withoutMasking: number;
  /** USD at the model's prices, when the table has a row for it. */
  cost?: number;
  costWithoutMasking?: number;
}

export function recordNet(record: UsageRecord, price?: PriceRow): RecordNet | undefined {
  if (
    record.promptTokens === undefined ||
    record.cachedTokens === undefined ||
    record.unmaskedPromptTokens === undefined
  ) {
    return undefined;
  }
  const economics = economicsOf(record.front);
  const actual = {
    promptTokens: record.promptTokens,
    cachedTokens: record.cachedTokens,
    ...(record.cacheWriteTokens !== undefined ? { cacheWriteTokens: record.cacheWriteTokens } : {}),
  };
  const unmasked = {
    promptTokens: record.unmaskedPromptTokens,
    cachedTokens: record.unmaskedCachedTokens ?? 0,
    // Without a write figure (OpenAI, Gemini) the provider bills a write as an input token.
    ...(record.cacheWriteTokens !== undefined
      ? { cacheWriteTokens: record.unmaskedCacheWriteTokens ?? 0 }
      : {}),
  };
  return {
    billed: billedTokens(actual, economics),
    withoutMasking: billedTokens(unmasked, economics),
    ...(price
      ? { cost: promptCost(actual, price), costWithoutMasking: promptCost(unmasked, price) }
      : {}),
  };
}
