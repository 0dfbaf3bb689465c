/**
 * The masking settings a launch's gateway reads, and their check before anything starts.
 *
 * Which file: core's one precedence rule (config/settingsPlace.ts): `--masking-settings FILE`
 * when given; else the client's own file (its adapter's `ownFile`) when it holds masking
 * settings; else gemini's user settings (`~/.gemini/settings.json`, its
 * `experimental.toolOutputMasking`, where the in-process installation reads them too); else the
 * defaults. Claude, Codex and OpenCode keep a `toolmask.json` beside their own config (keys at its
 * top level: they validate their own settings files, so toolmask's keys cannot live there); qwen,
 * which ignores keys it does not know, its own `~/.qwen/settings.json` (the block there).
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
  readToolOutputMaskingSettingsFile,
  userSettingsPath,
  winningSettingsFile,
  type SettingsCandidate,
} from '@toolmask/core/settings';
import type { Environment } from '../environment.js';
import { LaunchError } from '../launch-error.js';

export class MaskingSettingsError extends LaunchError {}

/** A file, whether it is there, and whether it holds masking settings (core's `present`). */
export async function settingsCandidate(
  file: string,
): Promise<SettingsCandidate & { exists: boolean }> {
  const { exists, present } = await readToolOutputMaskingSettingsFile(file);
  return { file, exists, present };
}

/** The masking settings file of a launch (see the module comment). */
export async function maskingSettingsFile(
  env: Environment,
  options: {
    /** `--masking-settings FILE`. */
    given?: string | undefined;
    /** The client's own masking settings file, when it has one. */
    ownFile?: string | undefined;
  },
): Promise<string> {
  if (options.given) return options.given;
  const gemini = await settingsCandidate(userSettingsPath(env));
  const own = options.ownFile === undefined ? undefined : await settingsCandidate(options.ownFile);
  return winningSettingsFile({ own, gemini });
}

/** Core's sentence without its tail about ignoring the block: the launch stops instead. */
function withoutFallback(message: string): string {
  return message
    .replace(/ This file's masking settings are ignored\.$/, '')
    .replace(/ (That key is|Those keys are) ignored; the rest of the (block|file) applies\.$/, '')
    .replace(/ Its (experimental\.toolOutputMasking|masking) settings are ignored\.$/, '')
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
 * What a start refuses in `file` (one sentence each: the file, the key, what was expected), and
 * the warnings that let it go ahead. `toolmask status` says the same (status/).
 */
export async function maskingSettingsProblems(
  file: string,
  choice: MaskingSettingsChoice = { flag: '--masking-settings', given: false },
): Promise<{ problems: string[]; warnings: string[] }> {
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
  return { problems, warnings };
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
  const { problems, warnings } = await maskingSettingsProblems(file, choice);
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
