/**
 * The masking settings a launch's gateway reads (`experimental.toolOutputMasking`), and their
 * check before anything starts.
 *
 * Which file: `--masking-settings FILE` when given. Else gemini's user settings
 * (`~/.gemini/settings.json`, where the in-process installation and `toolmask gateway` read them
 * too): claude, codex and opencode validate their own settings files, so toolmask's block stays
 * there. A client that ignores a key it does not know may keep the block in its own user file
 * (its adapter's `ownFile`; qwen: `~/.qwen/settings.json`, since a qwen-only user has no gemini
 * folder), which is then read, unless only gemini's file has the block (where toolmask read it for
 * qwen before).
 *
 * The check: a gateway that meets a bad value ignores that key and says so in its log only, so
 * the run would go ahead with settings the person did not choose. So a value of the
 * wrong type (`"toolProtectionThreshold": "50k"`), a file that cannot be read or parsed, and an
 * unknown key that is close to a known one (a typo: `toolProtectionThresold`) stop the launch
 * with exit 2, naming the file, the key, what was expected and the key meant, as a broken JSON
 * file already does; so does a file the option names that does not exist. An unknown key close to
 * none is only a warning: it may be a setting of a newer toolmask, and core never refuses those
 * either (unknownSettingKeys.ts). `toolmask gateway --settings` makes the same check.
 */
import {
  readSettingsText,
  readToolOutputMaskingSettingsFile,
  parseSettingsText,
  userSettingsPath,
} from '@toolmask/core/settings';
import type { Environment } from '../environment.js';
import { valueAt } from '../files/jsonc-settings.js';
import { LaunchError } from '../launch-error.js';

export class MaskingSettingsError extends LaunchError {}

/** Whether the file holds an `experimental.toolOutputMasking` block (false when it cannot be read). */
async function hasMaskingBlock(file: string): Promise<boolean> {
  try {
    return (
      valueAt(parseSettingsText(await readSettingsText(file)), [
        'experimental',
        'toolOutputMasking',
      ]) !== undefined
    );
  } catch {
    return false;
  }
}

/** The masking settings file of a launch (see the module comment). */
export async function maskingSettingsFile(
  env: Environment,
  options: {
    /** `--masking-settings FILE`. */
    given?: string | undefined;
    /** The client's own user settings file, when the block may live there. */
    ownFile?: string | undefined;
  },
): Promise<string> {
  if (options.given) return options.given;
  const gemini = userSettingsPath(env);
  // Without a file of its own, the client's block is in the file every other toolmask command
  // reads by default (`toolmask gateway --settings`).
  const own = options.ownFile;
  if (own === undefined) return gemini;
  if (!(await hasMaskingBlock(own)) && (await hasMaskingBlock(gemini))) return gemini;
  return own;
}

/** Core's sentence without its tail about ignoring the block: the launch stops instead. */
function withoutFallback(message: string): string {
  return message
    .replace(/ This file's masking settings are ignored\.$/, '')
    .replace(/ (That key is|Those keys are) ignored; the rest of the block applies\.$/, '')
    .replace(/ Its experimental\.toolOutputMasking settings are ignored\.$/, '')
    .replace(/ \(ignored\);/, ';');
}

/** How the file was chosen, for `checkMaskingSettings`. */
export interface MaskingSettingsChoice {
  /** The option that names it, said in the refusal (`--masking-settings`, `--settings`). */
  flag: string;
  /** Whether that option named it: then a missing file is a mistake too. */
  given: boolean;
  /** What is refused to start: the launch's client and gateway, or the gateway. */
  what?: string;
}

/**
 * Throws a `MaskingSettingsError` for what must stop the start; resolves to the warnings to show
 * (one line each) otherwise. A missing default file is no mistake: the defaults apply; a missing
 * file the option named is.
 */
export async function checkMaskingSettings(
  file: string,
  choice: MaskingSettingsChoice = { flag: '--masking-settings', given: false },
): Promise<string[]> {
  const result = await readToolOutputMaskingSettingsFile(file);
  const problems: string[] = [];
  if (!result.exists && choice.given) {
    problems.push(`${file} does not exist (named by ${choice.flag}).`);
  }
  if (result.error) problems.push(withoutFallback(result.error.message));
  const warnings: string[] = [];
  for (const warning of result.warnings ?? []) {
    if (warning.suggestion) problems.push(withoutFallback(warning.message));
    else warnings.push(`warning: ${warning.message}`);
  }
  if (problems.length > 0) {
    throw new MaskingSettingsError(
      [
        `the masking settings in ${file} have ${problems.length === 1 ? 'a mistake' : 'mistakes'}; ${choice.what ?? 'nothing'} was started:`,
        ...problems.map((problem) => `  ${problem}`),
        `Fix the file (the keys, their types and defaults: docs/settings.md), or name another with ${choice.flag} FILE.`,
      ].join('\n'),
    );
  }
  return warnings;
}
