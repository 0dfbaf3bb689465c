/**
 * The one claude flag the launcher reads and rewrites: `--settings <file-or-json>`. Claude Code
 * 2.1.328 parses its arguments with commander: an option that takes a value takes the next
 * argument whatever it looks like, or the text after `=`; `--` ends the options; given twice, the
 * last one wins. The launcher's own flags go in the `--name=value` form: `--mcp-config` and
 * `--allowedTools` take several values, and a value after `=` ends the list, so a prompt that
 * follows is never read as one more MCP config.
 */

interface Occurrence {
  /** Index of the flag. */
  index: number;
  value: string;
  /** The value came after `=` in the same argument. */
  inline: boolean;
}

function occurrences(args: readonly string[], flag: string): Occurrence[] {
  const found: Occurrence[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '--') break;
    if (arg.startsWith(`${flag}=`)) {
      found.push({ index, value: arg.slice(flag.length + 1), inline: true });
    } else if (arg === flag && index + 1 < args.length) {
      found.push({ index, value: args[index + 1] as string, inline: false });
      index++;
    }
  }
  return found;
}

/** The value of `--settings` as claude sees it (the last one given), or undefined. */
export function claudeSettingsFlag(args: readonly string[]): string | undefined {
  return occurrences(args, '--settings').at(-1)?.value;
}

/** `args` without any `--settings` flag and its value. */
export function withoutClaudeSettingsFlag(args: readonly string[]): string[] {
  const drop = new Set<number>();
  for (const occurrence of occurrences(args, '--settings')) {
    drop.add(occurrence.index);
    if (!occurrence.inline) drop.add(occurrence.index + 1);
  }
  return args.filter((_, index) => !drop.has(index));
}
