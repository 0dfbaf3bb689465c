/**
 * A strategy with the engine's cold-cache signal replaced: `true` makes every pass mask as at a
 * cold moment (everything prunable, every request: what the schedule optimum needs to learn what
 * each masking event would do), `false` hides every cold moment (the bench's ablation of masking
 * at cold moments). Pricing is the engine's and does not change.
 */
import type { ReplayStrategy } from '../types.js';

export function withColdSignal(
  strategy: ReplayStrategy,
  cacheLikelyCold: boolean,
  name = strategy.name,
): ReplayStrategy {
  return {
    name,
    async startSession(sessionId) {
      const session = await strategy.startSession(sessionId);
      return {
        mask: (history, pending, request) =>
          session.mask(history, pending, { ...request, cacheLikelyCold }),
      };
    },
  };
}
