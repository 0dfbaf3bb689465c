/**
 * This project's masking pass (`@toolmask/core`), with the settings the person gave, run the way
 * its gemini-cli integration runs it: when the request being sent carries tool responses, it is
 * passed as the latest turn (so a giant newest output can be offloaded before it is ever sent);
 * a text prompt is not.
 */
import {
  ToolOutputMaskingService,
  createFileToolOutputStore,
  type MaskingTuning,
  type ToolOutputMaskingConfig,
} from '@toolmask/core';
import type { ReplayStrategy } from '../types.js';

export interface ToolmaskStrategyOptions {
  config: ToolOutputMaskingConfig;
  /** Plays the project temp dir: outputs go to `<projectTempDir>/tool-outputs/session-<id>/`. */
  projectTempDir: string;
  /** Name in tables and charts. @default 'toolmask' */
  name?: string;
  /** Design knobs, for the bench's lever ablations. @default none */
  tuning?: MaskingTuning;
}

export function createToolmaskStrategy(options: ToolmaskStrategyOptions): ReplayStrategy {
  // The replay writes to a scratch folder: no fsync, a crash loses nothing that matters.
  const store = createFileToolOutputStore({ fsync: false });
  return {
    name: options.name ?? 'toolmask',
    startSession(sessionId) {
      // Telemetry off: a replay is not a real session.
      const service = new ToolOutputMaskingService({
        store,
        telemetry: () => {},
        ...(options.tuning ? { tuning: options.tuning } : {}),
      });
      const host = {
        getToolOutputMaskingConfig: async () => options.config,
        getSessionId: () => sessionId,
        storage: { getProjectTempDir: () => options.projectTempDir },
      };
      return {
        async mask(history, pending, request) {
          const withPending = (pending.parts ?? []).some((part) => part.functionResponse);
          const input = withPending ? [...history, pending] : history;
          const result = await service.mask(input, host, {
            cacheLikelyCold: request.cacheLikelyCold,
          });
          return {
            contents: withPending ? result.newHistory : [...result.newHistory, pending],
            maskedCount: result.maskedCount,
            offloadedBytes: result.offloaded.reduce((sum, output) => sum + output.bytes, 0),
            failures: result.failures.length,
            ...(result.notice ? { notice: result.notice } : {}),
          };
        },
      };
    },
  };
}
