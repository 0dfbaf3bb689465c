/**
 * ANSI colors, only for a terminal and never when NO_COLOR is set to anything non-empty
 * (https://no-color.org). The palette is small: one color per strategy plus dim and bold.
 */
export interface Palette {
  enabled: boolean;
  dim(text: string): string;
  bold(text: string): string;
  /** The color of the n-th strategy. */
  series(index: number, text: string): string;
}

const SERIES_CODES = [90, 36, 33, 35, 32, 34];

export function colorEnabled(
  stream: { isTTY?: boolean },
  env: Record<string, string | undefined>,
): boolean {
  const noColor = env['NO_COLOR'];
  if (noColor !== undefined && noColor !== '') return false;
  return stream.isTTY === true;
}

export function createPalette(enabled: boolean): Palette {
  const wrap = (code: number, text: string) => (enabled ? `\u001b[${code}m${text}\u001b[0m` : text);
  return {
    enabled,
    dim: (text) => wrap(2, text),
    bold: (text) => wrap(1, text),
    series: (index, text) => wrap(SERIES_CODES[index % SERIES_CODES.length] as number, text),
  };
}
