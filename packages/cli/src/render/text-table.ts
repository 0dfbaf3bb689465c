/** A plain-text table: first column left-aligned, the others right-aligned (numbers). */
export interface TextTableOptions {
  /** Alignment per column; default: first left, rest right. */
  align?: readonly ('left' | 'right')[];
  /** Space between columns. @default 2 */
  gap?: number;
}

// Strips ANSI color codes to measure what is visible.
const ANSI = new RegExp(String.fromCharCode(27) + '\\[[0-9;]*m', 'g');

function visibleLength(text: string): number {
  return text.replace(ANSI, '').length;
}

export function renderTextTable(
  rows: readonly (readonly string[])[],
  options: TextTableOptions = {},
): string {
  const gap = ' '.repeat(options.gap ?? 2);
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, column) => {
      widths[column] = Math.max(widths[column] ?? 0, visibleLength(cell));
    });
  }
  return rows
    .map((row) =>
      row
        .map((cell, column) => {
          const padding = ' '.repeat((widths[column] ?? 0) - visibleLength(cell));
          const align = options.align?.[column] ?? (column === 0 ? 'left' : 'right');
          return align === 'left' ? cell + padding : padding + cell;
        })
        .join(gap)
        .trimEnd(),
    )
    .join('\n');
}
