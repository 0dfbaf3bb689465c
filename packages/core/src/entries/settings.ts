/**
 * `@toolmask/core/settings`: the settings declarations and everything derived from them, and
 * the reading of gemini-cli `settings.json` files. For tools (the CLI's flags, the docs generator,
 * the gateway's `--settings`).
 */
export {
  SETTINGS,
  SETTING_KEYS,
  SETTINGS_PATH,
  BUILT_IN_EXEMPT_TOOLS,
  DEFAULT_TOOL_OUTPUT_MASKING_CONFIG,
  defaultMaxOutputTokens,
  expectedSettingValue,
  isValidSettingValue,
  resolveToolOutputMaskingConfig,
  resolveToolOutputMaskingConfigForModel,
  validateToolOutputMaskingSettings,
  ToolOutputMaskingSettingsError,
  type SettingDeclaration,
  type SettingKey,
  type SettingType,
  type SettingValue,
  type ToolOutputMaskingConfig,
  type ToolOutputMaskingSettings,
} from '../config/toolOutputMaskingSettings.js';
export {
  readSettingsText,
  SettingsReadError,
  MAX_SETTINGS_BYTES,
  type SettingsReadErrorCode,
} from '../config/settingsText.js';
export {
  unknownSettingKeys,
  closestSettingKey,
  describeUnknownSettingKey,
  type UnknownSettingKey,
} from '../config/unknownSettingKeys.js';
export {
  parseSettingsText,
  parseToolOutputMaskingSettings,
  readToolOutputMaskingSettingsFile,
  ToolOutputMaskingSettingsFiles,
  SettingsFileError,
  type SettingsFileErrorCode,
  type SettingsFilePlace,
  type ParsedSettingsBlock,
  type ReadSettingsFileResult,
  type SettingsFileSystem,
  type SettingsFileWarning,
  type SettingsFilesOptions,
  type SettingsLayer,
  type SettingsScope,
} from '../config/settingsFile.js';
export { userSettingsPath, workspaceSettingsPath } from '../config/paths.js';
export {
  CLIENT_SETTINGS_FILE_NAME,
  MASKING_SETTINGS_PRECEDENCE,
  clientSettingsPath,
  maskingKeysAt,
  winningSettingsFile,
  type SettingsCandidate,
  type SettingsCandidates,
  type SettingsPlaceClient,
} from '../config/settingsPlace.js';
