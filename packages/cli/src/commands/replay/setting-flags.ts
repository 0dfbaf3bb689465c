/**
 * The `toolmask replay` flags that tune toolmask, made from the settings declarations of
 * `@toolmask/core/settings` (each declaration with a `flag` gets one): no flag, type or help text
 * is written here. Flags win over `--settings FILE`.
 */
import { Option, type Command } from 'commander';
import {
  SETTINGS,
  SETTING_KEYS,
  validateToolOutputMaskingSettings,
  type SettingKey,
  type SettingType,
  type ToolOutputMaskingSettings,
} from '@toolmask/core/setting-declarations';
import { parseNameList, parseNonNegativeInteger } from '../../option-parsers.js';

const PARSERS: Record<SettingType, ((value: string) => unknown) | undefined> = {
  boolean: undefined,
  'non-negative integer': parseNonNegativeInteger,
  'array of strings': parseNameList,
  // Checked against the declared values with the rest (settingsFromFlags names them).
  'one of': undefined,
};

/** The settings that have a flag, with the commander options that set them. */
function flagOptions(): Array<{ key: SettingKey; options: Option[] }> {
  return SETTING_KEYS.flatMap((key) => {
    const { type, flag } = SETTINGS[key];
    if (!flag) return [];
    if (type === 'boolean') {
      return [
        {
          key,
          options: [
            new Option(`--${flag.name}`, flag.help),
            new Option(`--no-${flag.name}`, `the opposite of --${flag.name}`),
          ],
        },
      ];
    }
    const option = new Option(`--${flag.name} <${flag.argument ?? 'value'}>`, flag.help);
    const parser = PARSERS[type];
    if (parser) option.argParser(parser);
    return [{ key, options: [option] }];
  });
}

export function addSettingFlags(command: Command): Command {
  for (const { options } of flagOptions()) for (const option of options) command.addOption(option);
  return command;
}

/** The settings the flags set (unset flags are left out). Throws on a bad value, naming the key. */
export function settingsFromFlags(
  values: Readonly<Record<string, unknown>>,
): ToolOutputMaskingSettings {
  const block: Record<string, unknown> = {};
  for (const { key, options } of flagOptions()) {
    const value = values[(options[0] as Option).attributeName()];
    if (value !== undefined) block[key] = value;
  }
  return validateToolOutputMaskingSettings(block, 'the command-line flags');
}
