/**
 * The masking block of one settings file's text: where it is (a `toolmask.json`'s top level, else
 * `experimental.toolOutputMasking`: settingsPlace.ts), its valid keys, and the error or warning
 * naming the file and the key of whatever is wrong (settingsFile.ts says what applies then).
 */
import {
  SETTINGS_PATH,
  validSettingKeys,
  type ToolOutputMaskingSettings,
} from './toolOutputMaskingSettings.js';
import { maskingKeysAt } from './settingsPlace.js';
import { parseSettingsText } from './settingsText.js';
import { describeUnknownSettingKey, unknownSettingKeys } from './unknownSettingKeys.js';
import { describeError, isPlainObject } from '../utils/safeCall.js';
import { ToolmaskError } from '../utils/toolmaskError.js';

export type SettingsScope = 'user' | 'workspace';

/**
 * Why a settings file's block is ignored: `READ_FAILED` (the file exists but cannot be read: not
 * a regular file, too large, an I/O error), `INVALID_JSON` (it does not parse), `INVALID_SETTING`
 * (it parses, but the top level, `experimental` or a value of the block has the wrong type).
 */
export type SettingsFileErrorCode = 'READ_FAILED' | 'INVALID_JSON' | 'INVALID_SETTING';

/** Where a settings problem is: the file, the key and (when known) the file's scope. */
export interface SettingsFilePlace {
  /** Absolute path of the settings file. */
  file: string;
  /**
   * Dotted key the problem concerns, e.g. `experimental.toolOutputMasking.toolProtectionThreshold`
   * (in a `toolmask.json`: `toolProtectionThreshold`, and `''` for the whole file).
   */
  key: string;
  scope?: SettingsScope | undefined;
}

/** A settings file that could not be used, with the file and the key it concerns. */
export class SettingsFileError extends ToolmaskError<SettingsFileErrorCode> {
  /** Absolute path of the settings file. */
  readonly file: string;
  /** Dotted key the problem concerns, e.g. `experimental.toolOutputMasking.toolProtectionThreshold`. */
  readonly key: string;
  readonly scope?: SettingsScope;

  constructor(
    code: SettingsFileErrorCode,
    message: string,
    { file, key, scope }: SettingsFilePlace,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.file = file;
    this.key = key;
    this.scope = scope;
  }
}

/** A key toolmask does not know under `experimental.toolOutputMasking`: ignored, and said. */
export interface SettingsFileWarning {
  message: string;
  /** Absolute path of the settings file. */
  file: string;
  /** Dotted key, e.g. `experimental.toolOutputMasking.toolProtectionThresold`. */
  key: string;
  /** The known key it most likely meant. */
  suggestion?: string;
  scope?: SettingsScope;
}

export interface ParsedSettingsBlock {
  /** What to apply from this file: the block, `{}`, or `{ enabled: false }` (see the module comment). */
  settings: ToolOutputMaskingSettings;
  /**
   * Whether the file holds masking settings, for the precedence rule (settingsPlace.ts): a
   * `toolmask.json` always; a `settings.json` when it has the block, or cannot be used at all.
   */
  present: boolean;
  error?: SettingsFileError;
  /** Unknown keys of the block (present only when there are some). */
  warnings?: SettingsFileWarning[];
}

/** Whatever the block says about `enabled`, if it says `false` in so many words. */
function explicitOff(block: unknown): ToolOutputMaskingSettings {
  return isPlainObject(block) && block['enabled'] === false ? { enabled: false } : {};
}

/** Where a file's masking keys are: `keysAt` for keys, `name` for "its … settings are ignored". */
export interface KeysPlace {
  keysAt: string;
  name: string;
}

export function keysPlaceOf(file: string): KeysPlace {
  return maskingKeysAt(file) === 'top level'
    ? { keysAt: '', name: 'masking' }
    : { keysAt: SETTINGS_PATH, name: SETTINGS_PATH };
}

/**
 * Parses the text of one settings file (JSONC) and extracts the masking block: the top level of
 * a `toolmask.json`, `experimental.toolOutputMasking` of any other file (settingsPlace.ts).
 * Missing `experimental` or missing block: `{}` without error.
 */
export function parseToolOutputMaskingSettings(
  text: string,
  file: string,
  scope?: SettingsScope,
): ParsedSettingsBlock {
  const place = keysPlaceOf(file);
  let root: unknown;
  try {
    root = parseSettingsText(text);
  } catch (error) {
    return {
      settings: {},
      present: true,
      error: new SettingsFileError(
        'INVALID_JSON',
        `Could not parse ${file}: ${(error as Error).message}. Its ${place.name} settings are ignored.`,
        { file, key: place.keysAt, scope },
        { cause: error },
      ),
    };
  }
  const topLevel = place.keysAt === '';
  if (root === undefined) return { settings: {}, present: topLevel };
  if (!isPlainObject(root)) {
    return {
      settings: {},
      present: true,
      error: new SettingsFileError(
        'INVALID_SETTING',
        `Invalid settings file ${file}: expected a JSON object at the top level. Its ${place.name} settings are ignored.`,
        { file, key: place.keysAt, scope },
      ),
    };
  }
  if (topLevel) return { ...blockOf(root, file, place, scope), present: true };
  const experimental = root['experimental'];
  if (experimental === undefined) return { settings: {}, present: false };
  if (!isPlainObject(experimental)) {
    return {
      settings: {},
      present: true,
      error: new SettingsFileError(
        'INVALID_SETTING',
        `Invalid setting experimental in ${file}: expected an object. Its ${SETTINGS_PATH} settings are ignored.`,
        { file, key: 'experimental', scope },
      ),
    };
  }
  const block = experimental['toolOutputMasking'];
  return { ...blockOf(block, file, place, scope), present: block !== undefined };
}

/** The block's settings and its unknown keys. */
function blockOf(
  block: unknown,
  file: string,
  place: KeysPlace,
  scope?: SettingsScope,
): Omit<ParsedSettingsBlock, 'present'> {
  const dotted = (key: string) => (place.keysAt ? `${place.keysAt}.${key}` : key);
  const unknown = unknownSettingKeys(block).map((key): SettingsFileWarning => ({
    message: describeUnknownSettingKey(key, file, place.keysAt),
    file,
    key: dotted(key.key),
    ...(key.suggestion ? { suggestion: key.suggestion } : {}),
    ...(scope ? { scope } : {}),
  }));
  const warnings = unknown.length > 0 ? { warnings: unknown } : {};
  return { ...blockSettings(block, file, place, scope), ...warnings };
}

/** The block's settings, a bad value dropping its key only, and the error naming each bad key. */
function blockSettings(
  block: unknown,
  file: string,
  place: KeysPlace,
  scope?: SettingsScope,
): Omit<ParsedSettingsBlock, 'present'> {
  const { settings, bad } = validSettingKeys(block, file, place.keysAt);
  const first = bad[0];
  if (!first) return { settings };
  if (!first.key) {
    // The block itself is no object: nothing of it applies.
    return {
      settings: explicitOff(block),
      error: new SettingsFileError(
        'INVALID_SETTING',
        `${describeError(first)} This file's masking settings are ignored.`,
        { file, key: place.keysAt, scope },
        { cause: first },
      ),
    };
  }
  const rest = place.keysAt ? 'the rest of the block applies' : 'the rest of the file applies';
  const fallback =
    bad.length === 1 ? `That key is ignored; ${rest}.` : `Those keys are ignored; ${rest}.`;
  return {
    settings,
    error: new SettingsFileError(
      'INVALID_SETTING',
      `${bad.map((error) => describeError(error)).join(' ')} ${fallback}`,
      { file, key: place.keysAt ? `${place.keysAt}.${first.key}` : first.key, scope },
      { cause: first },
    ),
  };
}
