/**
 * The options of `toolmask replay` and how they become strategy settings:
 * defaults < `--settings FILE` < flags. Flags only tune toolmask; the `gemini-cli` strategy runs
 * with gemini-cli's defaults, or with the thresholds the settings file gives gemini-cli.
 */
import {
  resolveToolOutputMaskingConfig,
  type ToolOutputMaskingConfig,
  type ToolOutputMaskingSettings,
} from '@toolmask/core/settings';
import { usageError } from '../../cli-error.js';
import { InputError } from '../../input/input-error.js';
import type { GeminiCliMaskingConfig } from '../../replay/strategies/gemini-cli.js';
import type { PricingName } from '../../replay/pricing.js';
import type { SinceFilter } from './replay-filters.js';
import { readSettingsFile } from '../../settings/read-settings-file.js';
import { settingsFromFlags } from './setting-flags.js';

export const STRATEGY_NAMES = ['none', 'toolmask', 'gemini-cli'] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];

export interface ReplayCommandOptions {
  compare?: boolean;
  strategies?: string[];
  concat: number;
  cacheDiscount: number;
  /** `--pricing`: whose cache rules; default the inputs' provider. */
  pricing?: PricingName;
  /** `--since`: only sessions active since then. */
  since?: SinceFilter;
  warmTaskStarts?: boolean;
  settings?: string;
  json?: boolean;
  report?: string;
  keep?: string;
  /** Write into a non-empty `--keep` folder. */
  force?: boolean;
  verbose?: boolean;
  chart?: boolean;
  /** Read subfolders of a directory PATH (`--no-recursive` sets false). */
  recursive?: boolean;
  /** The setting flags (setting-flags.ts), by commander attribute name. */
  [settingFlag: string]: unknown;
}

export function selectStrategies(options: ReplayCommandOptions): StrategyName[] {
  if (options.strategies && options.strategies.length > 0) {
    const unknown = options.strategies.filter(
      (name) => !(STRATEGY_NAMES as readonly string[]).includes(name),
    );
    if (unknown.length > 0) {
      throw usageError(
        `unknown strategy ${unknown.map((name) => JSON.stringify(name)).join(', ')} ` +
          `(choose from ${STRATEGY_NAMES.join(', ')})`,
      );
    }
    return [...new Set(options.strategies)] as StrategyName[];
  }
  return options.compare ? [...STRATEGY_NAMES] : ['none', 'toolmask'];
}

export interface ResolvedSettings {
  toolmask: ToolOutputMaskingConfig;
  geminiCli: Partial<GeminiCliMaskingConfig>;
  /** Warnings about the settings file (unknown keys), one line each. */
  warnings: string[];
}

export async function resolveSettings(options: ReplayCommandOptions): Promise<ResolvedSettings> {
  let fromFile = { toolmask: {}, geminiCli: {}, warnings: [] } as {
    toolmask: ToolOutputMaskingSettings;
    geminiCli: Partial<GeminiCliMaskingConfig>;
    warnings: string[];
  };
  if (options.settings) {
    try {
      fromFile = await readSettingsFile(options.settings);
    } catch (error) {
      if (error instanceof InputError) throw usageError(error.message);
      throw error;
    }
  }
  let flags: ToolOutputMaskingSettings;
  try {
    flags = settingsFromFlags(options);
  } catch (error) {
    throw usageError((error as Error).message);
  }
  return {
    toolmask: resolveToolOutputMaskingConfig(fromFile.toolmask, flags),
    geminiCli: fromFile.geminiCli,
    warnings: fromFile.warnings,
  };
}
