/**
 * The shell tool's result as the hosts write it, split into sections so a preview can keep the
 * status whole and cut only the output:
 * - gemini-cli-core: `Output: …` then, as they apply, `Error: …`, `Exit Code: N`, `Signal: …`,
 *   `Background PIDs: …`, `Process Group PGID: N`;
 * - the `gemini` command (0.61.0) wraps that in `<untrusted_context>` … `</untrusted_context>`,
 *   after a line saying where the full text is when it truncated it;
 * - qwen-code: `Command: …` and `Directory: …` first, then the same sections (with `(none)` for
 *   those that do not apply).
 */

/** Sections the shell tool appends after `Output:`, in the order it writes them. */
const TRAILING_SECTIONS = [
  'Error',
  'Exit Code',
  'Signal',
  'Background PIDs',
  'Process Group PGID',
] as const;

/** Tags a host wraps tool output in, to tell the model it is untrusted text. */
const WRAPPER_TAGS = ['untrusted_context'] as const;

/** How far from the end a single-line section, or the Error section, may start. */
const LINE_SEARCH_WINDOW = 1_024;
const ERROR_SEARCH_WINDOW = 64 * 1_024;
/** How far from the start the wrapper, or qwen's Output line, may be (a notice, a long command). */
const HEAD_SEARCH_WINDOW = 64 * 1_024;

export interface ShellSection {
  name: string;
  value: string;
}

export interface ShellSections {
  /** Text before the wrapper (gemini's "Output too large … see: <file>" line). */
  preamble?: string;
  /** The tag the result came wrapped in. */
  wrapper?: string;
  /** Sections before `Output:` (qwen-code's Command and Directory), in order. */
  leading: ShellSection[];
  output: string;
  /** Trailing sections in order (the Error value may span lines). */
  trailing: ShellSection[];
}

/** Last index of `marker` that starts within the final `window` characters of `text`, or -1. */
function lastIndexWithin(text: string, marker: string, window: number): number {
  let found = -1;
  for (
    let at = text.indexOf(marker, Math.max(0, text.length - window));
    at !== -1;
    at = text.indexOf(marker, at + 1)
  ) {
    found = at;
  }
  return found;
}

/**
 * The text inside a wrapper tag that encloses all of it but a leading notice, and where that
 * inner text starts in `text`.
 */
export function unwrap(text: string): {
  preamble?: string;
  wrapper?: string;
  inner: string;
  innerStart: number;
} {
  const end = text.endsWith('\n') ? text.length - 1 : text.length;
  for (const tag of WRAPPER_TAGS) {
    const open = `<${tag}>\n`;
    const close = `\n</${tag}>`;
    // The closing tag first (one comparison); then the opening one, in the head only: a giant
    // output without the wrapper is never searched whole.
    if (!text.startsWith(close, end - close.length)) continue;
    const at = text.slice(0, HEAD_SEARCH_WINDOW + open.length).indexOf(open);
    if (at < 0) continue;
    const preamble = text.slice(0, at).replace(/\n$/, '');
    return {
      ...(preamble ? { preamble } : {}),
      wrapper: tag,
      inner: text.slice(at + open.length, end - close.length),
      innerStart: at + open.length,
    };
  }
  return { inner: text, innerStart: 0 };
}

/** qwen-code's `Command:` and `Directory:` lines, and where its `Output:` starts. */
export function leadingSections(text: string): { leading: ShellSection[]; rest: string } {
  if (!text.startsWith('Command: ')) return { leading: [], rest: text };
  const directory = text.indexOf('\nDirectory: ');
  if (directory < 0 || directory > HEAD_SEARCH_WINDOW) return { leading: [], rest: text };
  const lineEnd = text.indexOf('\n', directory + 1);
  if (lineEnd < 0 || !text.startsWith('Output:', lineEnd + 1)) return { leading: [], rest: text };
  return {
    leading: [
      { name: 'Command', value: text.slice('Command: '.length, directory) },
      { name: 'Directory', value: text.slice(directory + '\nDirectory: '.length, lineEnd) },
    ],
    rest: text.slice(lineEnd + 1),
  };
}

/**
 * Splits a shell tool result into its sections, or undefined when it is not one. The trailing
 * sections are found from the end, each at most once and in the shell tool's order, so a line
 * such as `Exit Code: 3` printed by the command itself inside Output is not mistaken for one.
 */
export function splitShellSections(text: string): ShellSections | undefined {
  const { preamble, wrapper, inner } = unwrap(text);
  const { leading, rest: body } = leadingSections(inner);
  if (!body.startsWith('Output:')) return undefined;
  let rest = body;
  const trailing: ShellSection[] = [];
  for (let index = TRAILING_SECTIONS.length - 1; index >= 0; index--) {
    const name = TRAILING_SECTIONS[index] as string;
    const marker = `\n${name}: `;
    // Sections sit at the end: search only the tail, not a 20 MB log.
    const window = name === 'Error' ? ERROR_SEARCH_WINDOW : LINE_SEARCH_WINDOW;
    const at = lastIndexWithin(rest, marker, window);
    if (at < 0) continue;
    const value = rest.slice(at + marker.length);
    // Single-line sections must really be a single line; otherwise this was part of Output.
    if (name !== 'Error' && value.includes('\n')) continue;
    trailing.unshift({ name, value });
    rest = rest.slice(0, at);
  }
  const output = rest.slice('Output:'.length).replace(/^ /, '');
  return {
    ...(preamble !== undefined ? { preamble } : {}),
    ...(wrapper !== undefined ? { wrapper } : {}),
    leading,
    output,
    trailing,
  };
}
