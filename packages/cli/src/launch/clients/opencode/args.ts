/**
 * The one opencode flag the launcher reads: the model, `-m`/`--model provider/model` (opencode
 * 1.18.33 parses its arguments with yargs: the value is the next argument or follows `=`; `--`
 * ends the options; given twice, the last one counts).
 */
export function opencodeModelFlag(args: readonly string[]): string | undefined {
  let model: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '--') break;
    const inline = /^(?:--model|-m)=(.*)$/.exec(arg);
    if (inline) {
      model = inline[1];
    } else if (arg === '--model' || arg === '-m') {
      const next = args[index + 1];
      if (next !== undefined && !next.startsWith('-')) {
        model = next;
        index++;
      }
    }
  }
  return model || undefined;
}
