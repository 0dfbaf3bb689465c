/**
 * qwen's command line as `toolmask qwen` handles it: the launcher's one option of qwen's own, and
 * the few qwen flags the launcher reads or rewrites. qwen-code 0.24.4 parses its arguments with
 * yargs' defaults: a long option is accepted in kebab case and in camel case
 * (`--openai-base-url`, `--openaiBaseUrl`), with its value as the next argument or after `=`, and
 * `--` ends the options (what follows is the prompt). A string option followed by another option
 * gets no value.
 */
import type { LauncherOption } from '../client-adapter.js';

export const QWEN_OPTIONS: readonly LauncherOption[] = [
  {
    flags: '--keep-microcompaction',
    description: "leave qwen's own clearing of old tool results on",
  },
];

/** `--keep-microcompaction`: qwen's microcompaction stays on for the run. */
export function keepsMicrocompaction(options: Readonly<Record<string, unknown>>): boolean {
  return options['keepMicrocompaction'] === true;
}

export type FlagName = 'openai-base-url' | 'auth-type';

function spellings(name: FlagName): string[] {
  const camel = name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
  return [`--${name}`, `--${camel}`];
}

interface Occurrence {
  /** Index of the flag. */
  index: number;
  /** The value, when it has one. */
  value?: string;
  /** The value came after `=` in the same argument. */
  inline: boolean;
}

function occurrences(args: readonly string[], name: FlagName): Occurrence[] {
  const names = spellings(name);
  const found: Occurrence[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '--') break;
    const inline = names.find((flag) => arg.startsWith(`${flag}=`));
    if (inline) {
      found.push({ index, value: arg.slice(inline.length + 1), inline: true });
    } else if (names.includes(arg)) {
      const next = args[index + 1];
      const hasValue = next !== undefined && next !== '--' && !next.startsWith('-');
      found.push({ index, ...(hasValue ? { value: next } : {}), inline: false });
      if (hasValue) index++;
    }
  }
  return found;
}

/** The flag's value as qwen sees it (the last one given), or undefined. */
export function flagValue(args: readonly string[], name: FlagName): string | undefined {
  return occurrences(args, name).at(-1)?.value || undefined;
}

/** `args` with every value of the flag replaced by `value` (flags without a value left alone). */
export function withFlagValue(args: readonly string[], name: FlagName, value: string): string[] {
  const result = [...args];
  for (const occurrence of occurrences(args, name)) {
    if (occurrence.value === undefined) continue;
    if (occurrence.inline) {
      const flag = (result[occurrence.index] as string).split('=', 1)[0] as string;
      result[occurrence.index] = `${flag}=${value}`;
    } else {
      result[occurrence.index + 1] = value;
    }
  }
  return result;
}
