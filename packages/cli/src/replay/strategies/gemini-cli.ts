/**
 * gemini-cli's built-in ToolOutputMaskingService (@google/gemini-cli-core), run in this process on
 * the same input. It is given a minimal stand-in for its `Config`: the masking thresholds, the
 * session id, the project temp dir (the fixed shown folder of shown-output-folder.ts), and usage
 * statistics off (so nothing is sent anywhere). Each pass runs in gemini-cli-sandbox.ts, which
 * makes its file names reproducible, writes its files into `projectTempDir` and counts their
 * bytes (it also writes files for outputs it then leaves unmasked).
 */
import { loadOptionalPackage } from '@toolmask/core/errors';
import type { ReplayStrategy } from '../types.js';
import { GEMINI_CLI_CORE, createSeededRandom, runGeminiCliPass } from './gemini-cli-sandbox.js';
import { createPathMapper, shownProjectTempDir } from './shown-output-folder.js';

/** Where gemini-cli's clock stands during a pass (2026-01-01T00:00:00Z). */
const PASS_CLOCK_MS = Date.UTC(2026, 0, 1);

export interface GeminiCliMaskingConfig {
  protectionThresholdTokens: number;
  minPrunableThresholdTokens: number;
  protectLatestTurn: boolean;
}

export interface GeminiCliStrategyOptions {
  /** Plays the project temp dir: gemini-cli writes to `<projectTempDir>/tool-outputs/session-<id>/`. */
  projectTempDir: string;
  /**
   * The project temp dir its snippets name, so that figures do not depend on where the files are
   * written. @default `/toolmask-replay/gemini-cli`
   */
  shownProjectTempDir?: string;
  /** @default gemini-cli's own defaults (50,000 / 30,000 / true) */
  config?: Partial<GeminiCliMaskingConfig>;
}

/**
 * Loaded on first use: importing gemini-cli-core takes about two seconds, and it is an optional
 * peer dependency (a `MissingPackageError` naming it when it is not installed).
 */
function loadServiceModule() {
  return loadOptionalPackage(
    GEMINI_CLI_CORE,
    "the replay's gemini-cli strategy",
    () => import('@google/gemini-cli-core/dist/src/context/toolOutputMaskingService.js'),
  );
}

export async function resolveGeminiCliMaskingConfig(
  overrides: Partial<GeminiCliMaskingConfig> = {},
): Promise<GeminiCliMaskingConfig> {
  const module = await loadServiceModule();
  return {
    protectionThresholdTokens:
      overrides.protectionThresholdTokens ?? module.DEFAULT_TOOL_PROTECTION_THRESHOLD,
    minPrunableThresholdTokens:
      overrides.minPrunableThresholdTokens ?? module.DEFAULT_MIN_PRUNABLE_TOKENS_THRESHOLD,
    protectLatestTurn: overrides.protectLatestTurn ?? module.DEFAULT_PROTECT_LATEST_TURN,
  };
}

export function createGeminiCliStrategy(options: GeminiCliStrategyOptions): ReplayStrategy {
  const shown = options.shownProjectTempDir ?? shownProjectTempDir('gemini-cli');
  const toRealPath = createPathMapper(shown, options.projectTempDir);
  return {
    name: 'gemini-cli',
    async startSession(sessionId) {
      const module = await loadServiceModule();
      const maskingConfig = await resolveGeminiCliMaskingConfig(options.config);
      const service = new module.ToolOutputMaskingService();
      const standInConfig = {
        getToolOutputMaskingConfig: async () => maskingConfig,
        getSessionId: () => sessionId,
        storage: { getProjectTempDir: () => shown },
        // Read by its telemetry: keep usage statistics off so nothing leaves the machine.
        getUsageStatisticsEnabled: () => false,
        getExperiments: () => undefined,
        getContentGeneratorConfig: () => undefined,
        isInteractive: () => false,
      };
      type ServiceConfig = Parameters<typeof service.mask>[1];
      // One sequence of file-name suffixes per session, the same on every run.
      const random = createSeededRandom(`gemini-cli:${sessionId}`);

      return {
        async mask(history, pending) {
          const pass = await runGeminiCliPass({ random, now: PASS_CLOCK_MS, toRealPath }, () =>
            service.mask(history, standInConfig as unknown as ServiceConfig),
          );
          const result = pass.value;
          if (result.maskedCount > 0 && pass.filesWritten === 0) {
            // Its files went somewhere else: this gemini-cli-core writes in a way the sandbox
            // does not know, and the figures would be wrong.
            throw new Error(
              `gemini-cli's pass masked ${result.maskedCount} outputs but wrote no file into ` +
                `${shown}; this version of @google/gemini-cli-core is not supported by the replay`,
            );
          }
          return {
            // gemini-cli masks the history only; the request being sent is not in it yet.
            contents: [...result.newHistory, pending],
            maskedCount: result.maskedCount,
            offloadedBytes: pass.bytesWritten,
            failures: 0,
            passMs: pass.passMs,
          };
        },
      };
    },
  };
}
