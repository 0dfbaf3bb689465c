/**
 * `--settings FILE`: a gemini-cli settings.json, read by core's own reader (a regular file of at
 * most 1 MB, comments allowed, trailing commas not). toolmask reads its block at
 * `experimental.toolOutputMasking` (an unknown key there is a warning naming the closest known
 * one); gemini-cli's own masking thresholds, when set, are read at
 * `contextManagement.tools.outputMasking` so the `gemini-cli` strategy runs as that user's would.
 */
import {
  SettingsReadError,
  describeUnknownSettingKey,
  parseSettingsText,
  readSettingsText,
  unknownSettingKeys,
  validateToolOutputMaskingSettings,
  type ToolOutputMaskingSettings,
} from '@toolmask/core/settings';
import { InputError } from '../input/input-error.js';
import type { GeminiCliMaskingConfig } from '../replay/strategies/gemini-cli.js';

export interface SettingsFileContents {
  toolmask: ToolOutputMaskingSettings;
  geminiCli: Partial<GeminiCliMaskingConfig>;
  /** Unknown keys of the toolmask block, one line each (they are ignored). */
  warnings: string[];
}

function objectAt(root: unknown, keys: readonly string[]): unknown {
  let value = root;
  for (const key of keys) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function readGeminiCliBlock(file: string, block: unknown): Partial<GeminiCliMaskingConfig> {
  if (block === undefined) return {};
  const where = 'contextManagement.tools.outputMasking';
  if (typeof block !== 'object' || block === null || Array.isArray(block)) {
    throw new InputError(file, `${where} must be an object`);
  }
  const raw = block as Record<string, unknown>;
  const config: Partial<GeminiCliMaskingConfig> = {};
  for (const key of ['protectionThresholdTokens', 'minPrunableThresholdTokens'] as const) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      throw new InputError(file, `${where}.${key} must be a non-negative integer`);
    }
    config[key] = value;
  }
  if (raw['protectLatestTurn'] !== undefined) {
    if (typeof raw['protectLatestTurn'] !== 'boolean') {
      throw new InputError(file, `${where}.protectLatestTurn must be a boolean`);
    }
    config.protectLatestTurn = raw['protectLatestTurn'];
  }
  return config;
}

export async function readSettingsFile(file: string): Promise<SettingsFileContents> {
  let text: string;
  try {
    text = await readSettingsText(file);
  } catch (error) {
    const why =
      error instanceof SettingsReadError && error.code !== 'ENOENT'
        ? error.message
        : `cannot be read (${(error as { cause?: { code?: string } }).cause?.code ?? 'ENOENT'})`;
    throw new InputError(file, why);
  }
  let root: unknown;
  try {
    // The same reading as the installed pass: comments allowed, trailing commas not.
    root = parseSettingsText(text) ?? {};
  } catch (error) {
    throw new InputError(file, `not valid JSON (${(error as Error).message})`);
  }
  if (typeof root !== 'object' || root === null || Array.isArray(root)) {
    throw new InputError(file, 'a settings file must hold a JSON object');
  }
  const block = objectAt(root, ['experimental', 'toolOutputMasking']);
  const warnings = unknownSettingKeys(block).map((key) => describeUnknownSettingKey(key, file));
  let toolmask: ToolOutputMaskingSettings;
  try {
    toolmask = validateToolOutputMaskingSettings(block, file);
  } catch (error) {
    // The message already names the key and the file.
    throw new InputError(file, (error as Error).message.replace(` in ${file}`, ''));
  }
  return {
    toolmask,
    warnings,
    geminiCli: readGeminiCliBlock(
      file,
      objectAt(root, ['contextManagement', 'tools', 'outputMasking']),
    ),
  };
}
