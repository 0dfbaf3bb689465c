/**
 * This project's masking pass (`@toolmask/core`), with the settings the person gave, run through
 * the same middleware as every other host: the request being sent goes in as the latest turn
 * when it carries tool responses, and the engine's cache-cold flag is the host's cold signal.
 * Snippets name the fixed folder of shown-output-folder.ts; the files go to `projectTempDir`.
 * They name both tools the in-process host offers, `read_tool_output` and `search_tool_outputs`.
 */
import {
  ToolOutputMaskingService,
  createMaskingMiddleware,
  type CacheEconomics,
  type MaskingTuning,
  type ToolOutputMaskingConfig,
} from '@toolmask/core';
import { SEARCH_TOOL_OUTPUTS_TOOL_NAME, createFileToolOutputStore } from '@toolmask/core/storage';
import type { ReplayStrategy } from '../types.js';
import { createRelocatedStore, shownProjectTempDir } from './shown-output-folder.js';

export interface ToolmaskStrategyOptions {
  config: ToolOutputMaskingConfig;
  /** Plays the project temp dir: outputs go to `<projectTempDir>/tool-outputs/session-<id>/`. */
  projectTempDir: string;
  /** Name in tables and charts. @default 'toolmask' */
  name?: string;
  /**
   * The project temp dir that snippets and notices name, so that figures do not depend on where
   * the files are written. @default `/toolmask-replay/toolmask`, whatever the name: variants of
   * the pass under other names (the bench's) write the same bytes for the same decisions.
   */
  shownProjectTempDir?: string;
  /** Design knobs, for the bench's lever ablations. @default none */
  tuning?: MaskingTuning;
  /**
   * The provider's cache economics the trigger weighs (core's `CACHE_ECONOMICS`), as the gateway's
   * front for that provider passes them. @default Gemini's (no write premium)
   */
  cacheEconomics?: CacheEconomics;
}

export function createToolmaskStrategy(options: ToolmaskStrategyOptions): ReplayStrategy {
  const name = options.name ?? 'toolmask';
  const shown = options.shownProjectTempDir ?? shownProjectTempDir('toolmask');
  // The replay writes to a scratch folder: no fsync, a crash loses nothing that matters.
  const store = createRelocatedStore(
    createFileToolOutputStore({ fsync: false }),
    shown,
    options.projectTempDir,
  );
  return {
    name,
    startSession(sessionId) {
      // Telemetry off: a replay is not a real session.
      const tuning: MaskingTuning | undefined = options.cacheEconomics
        ? { ...options.tuning, cacheEconomics: options.cacheEconomics }
        : options.tuning;
      const service = new ToolOutputMaskingService({
        store,
        telemetry: () => {},
        searchToolName: SEARCH_TOOL_OUTPUTS_TOOL_NAME,
        ...(tuning ? { _internal: { tuning } } : {}),
      });
      const middleware = createMaskingMiddleware(service, {
        host: {
          getToolOutputMaskingConfig: async () => options.config,
          getSessionId: () => sessionId,
          storage: { getProjectTempDir: () => shown },
        },
      });
      return {
        async mask(history, pending, request) {
          // The engine knows when the cache is cold (a new task, a new session): that is the
          // signal; the middleware's own idle-gap clock plays no part in a replay.
          const masked = await middleware.transformRequest({
            history,
            request: pending,
            cacheLikelyCold: request.cacheLikelyCold,
          });
          const { result } = masked;
          return {
            contents: [...masked.history, masked.request],
            maskedCount: result.maskedCount,
            offloadedBytes: result.offloaded.reduce((sum, output) => sum + output.bytes, 0),
            failures: result.failures.length,
            ...(result.notice ? { notice: result.notice } : {}),
            maskedOutputs: result.offloaded.map((output) => ({
              toolName: output.toolName,
              callId: output.callId,
              tokensBefore: output.tokensBefore,
              tokensAfter: output.tokensAfter,
              ...(output.superseded ? { superseded: { ...output.superseded } } : {}),
            })),
          };
        },
      };
    },
  };
}
