/**
 * `@toolmask/core/setting-declarations`: the settings declarations alone (no settings file
 * reading), for code that declares options from them and must load cheaply: the CLI's
 * `toolmask replay` flags are declared on every start of `toolmask`. `/settings` has these too.
 */
export {
  SETTINGS,
  SETTING_KEYS,
  validateToolOutputMaskingSettings,
  type SettingKey,
  type SettingType,
  type ToolOutputMaskingSettings,
} from '../config/toolOutputMaskingSettings.js';
