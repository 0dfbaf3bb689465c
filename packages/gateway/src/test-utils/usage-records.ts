/**
 * A usage record for tests: a request answered 200 that masked nothing and had no faults, with
 * whatever the test sets over it.
 */
import type { UsageRecord } from '../usage/usage-record.js';

export function usageRecordOf(overrides: Partial<UsageRecord> = {}): UsageRecord {
  return {
    at: 0,
    conversationId: 'c',
    client: 'other',
    front: 'gemini-api',
    model: 'm',
    status: 200,
    maskedOutputs: 0,
    newlyMasked: 0,
    tokensKeptOut: 0,
    bytesOffloaded: 0,
    failures: 0,
    cacheLikelyCold: false,
    gatewayMs: 0,
    ...overrides,
  };
}
