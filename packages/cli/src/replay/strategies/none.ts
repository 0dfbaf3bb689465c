/** The baseline: history is sent as recorded. */
import type { ReplayStrategy } from '../types.js';

export function createNoneStrategy(): ReplayStrategy {
  return {
    name: 'none',
    startSession: () => ({
      mask: async (history, pending) => ({
        contents: [...history, pending],
        maskedCount: 0,
        offloadedBytes: 0,
        failures: 0,
      }),
    }),
  };
}
