/**
 * gemini-cli's built-in ToolOutputMaskingService (@google/gemini-cli-core), run in this process on
 * the same input. It is given a minimal stand-in for its `Config`: the masking thresholds, the
 * session id, the project temp dir, and usage statistics off (so nothing is sent anywhere).
 * Its result carries no file list, so the bytes it wrote are measured on disk after each pass
 * that changed something (it also writes files for outputs it then leaves unmasked), in the
 * session's own folder only, so a scratch folder shared by many sessions does not make every
 * pass walk all of them.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ReplayStrategy } from '../types.js';

export interface GeminiCliMaskingConfig {
  protectionThresholdTokens: number;
  minPrunableThresholdTokens: number;
  protectLatestTurn: boolean;
}

export interface GeminiCliStrategyOptions {
  /** Plays the project temp dir: gemini-cli writes to `<projectTempDir>/tool-outputs/session-<id>/`. */
  projectTempDir: string;
  /** @default gemini-cli's own defaults (50,000 / 30,000 / true) */
  config?: Partial<GeminiCliMaskingConfig>;
}

/**
 * Runs `action` with gemini-cli's debug logger muted: its pass prints "[ToolOutputMasking] ..."
 * debug lines to the console, which would end up in the replay's output.
 */
async function withQuietDebugLogger<T>(action: () => Promise<T>): Promise<T> {
  const { debugLogger } = await import('@google/gemini-cli-core/dist/src/utils/debugLogger.js');
  const quiet = debugLogger as { debug: (...args: unknown[]) => void };
  quiet.debug = () => {};
  try {
    return await action();
  } finally {
    delete (quiet as Partial<typeof quiet>).debug; // the prototype's method shows through again
  }
}

/** Loaded on first use: importing gemini-cli-core takes about two seconds. */
function loadServiceModule() {
  return import('@google/gemini-cli-core/dist/src/context/toolOutputMaskingService.js');
}

/** Where gemini-cli writes a session's outputs: `<tool-outputs>/session-<sanitized id>`. */
async function sessionOutputsFolder(outputsFolder: string, sessionId: string): Promise<string> {
  const { sanitizeFilenamePart } =
    await import('@google/gemini-cli-core/dist/src/utils/fileUtils.js');
  return path.join(outputsFolder, `session-${sanitizeFilenamePart(sessionId)}`);
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

async function bytesUnder(directory: string): Promise<number> {
  let total = 0;
  let entries;
  try {
    entries = await fs.readdir(directory, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const entryPath = path.join(directory, entry.name);
    if (entry.isDirectory()) total += await bytesUnder(entryPath);
    else if (entry.isFile()) total += (await fs.stat(entryPath)).size;
  }
  return total;
}

export function createGeminiCliStrategy(options: GeminiCliStrategyOptions): ReplayStrategy {
  return {
    name: 'gemini-cli',
    async startSession(sessionId) {
      const module = await loadServiceModule();
      const maskingConfig = await resolveGeminiCliMaskingConfig(options.config);
      const service = new module.ToolOutputMaskingService();
      const outputsFolder = await sessionOutputsFolder(
        path.join(options.projectTempDir, module.TOOL_OUTPUTS_DIR),
        sessionId,
      );
      const standInConfig = {
        getToolOutputMaskingConfig: async () => maskingConfig,
        getSessionId: () => sessionId,
        storage: { getProjectTempDir: () => options.projectTempDir },
        // Read by its telemetry: keep usage statistics off so nothing leaves the machine.
        getUsageStatisticsEnabled: () => false,
        getExperiments: () => undefined,
        getContentGeneratorConfig: () => undefined,
        isInteractive: () => false,
      };
      type ServiceConfig = Parameters<typeof service.mask>[1];
      let bytesBefore = await bytesUnder(outputsFolder);

      return {
        async mask(history, pending) {
          const started = performance.now();
          const result = await withQuietDebugLogger(() =>
            service.mask(history, standInConfig as unknown as ServiceConfig),
          );
          const passMs = performance.now() - started;
          let offloadedBytes = 0;
          if (result.newHistory !== history) {
            const bytesNow = await bytesUnder(outputsFolder);
            offloadedBytes = bytesNow - bytesBefore;
            bytesBefore = bytesNow;
          }
          return {
            // gemini-cli masks the history only; the request being sent is not in it yet.
            contents: [...result.newHistory, pending],
            maskedCount: result.maskedCount,
            offloadedBytes,
            failures: 0,
            passMs,
          };
        },
      };
    },
  };
}
