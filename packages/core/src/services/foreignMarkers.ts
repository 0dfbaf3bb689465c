/**
 * Outputs another host has already cut or cleared, which toolmask leaves alone: never counted,
 * never masked again, never reported as savings. What the model sees there is the other host's
 * own marker; masking it would only hide where that host saved the output.
 *
 * - Claude Code: `<persisted-output>…</persisted-output>` (a large output saved to a file, with a
 *   preview and the file's path), `<truncated-output>…</truncated-output>`, and its cleared
 *   results, `[Old tool result content cleared]`;
 * - OpenCode's prune and qwen-code's microcompaction: `[Old tool result content cleared]`;
 * - gemini-cli's own masking: `<tool_output_masked>…</tool_output_masked>` (toolmask's snippets
 *   carry attributes in their opening tag, and are known by record, not by shape:
 *   maskingPass/responseRecords.ts).
 *
 * Only a short output can be a marker (`MAX_MARKER_CHARS`): a tool that prints such a shape
 * around megabytes is counted at its real size.
 */
const CLEARED = '[Old tool result content cleared]';
const WRAPPERS: readonly (readonly [string, string])[] = [
  ['<persisted-output>', '</persisted-output>'],
  ['<truncated-output>', '</truncated-output>'],
  ['<tool_output_masked>', '</tool_output_masked>'],
];

const NOT_SPACE = /\S/;

/** The largest output taken for a marker (Claude Code's previews are about 2 KB). */
export const MAX_MARKER_CHARS = 16 * 1024;

/** Whether a tool output's text is another host's marker (see the module comment). */
export function isForeignMarkerText(text: string): boolean {
  if (text.length > MAX_MARKER_CHARS) return false;
  // Every marker begins with `[` or `<`: any other text is told apart without trimming it (a
  // copy of nearly every output, which ends with a line break). `\S` is what `trim` keeps.
  const start = text.search(NOT_SPACE);
  const first = start < 0 ? -1 : text.charCodeAt(start);
  if (first !== 0x5b && first !== 0x3c) return false;
  const trimmed = text.trim();
  if (trimmed === CLEARED) return true;
  return WRAPPERS.some(([open, close]) => trimmed.startsWith(open) && trimmed.endsWith(close));
}

/** Whether a response (`{ output: text }`, as every host and front makes them) is such a marker. */
export function isForeignMarker(response: object): boolean {
  const output = (response as { output?: unknown }).output;
  return typeof output === 'string' && isForeignMarkerText(output);
}
