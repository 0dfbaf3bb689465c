/**
 * The lines a client writes before a shell command's output, apart from that output, so that the
 * saved output (savedText.ts) is the command's own and its line N is line N of what the command
 * printed: the line numbers of a snippet and the offsets of a read-back then mean what the model
 * saw as the command's output. The header stays, whole, in the snippet (toolOutputPreview.ts).
 *
 * - qwen-code (`run_shell_command`): `Command: …` and `Directory: …`, then `Output: <first line>`
 *   (the output keeps that prefix and the trailing sections, as gemini-cli-core's, whose first
 *   line is already the command's first: shellOutput.ts).
 * - the `gemini` command (0.61.0, `run_shell_command`): a truncation notice when it cut the
 *   output, then `<untrusted_context>` on its own line before `Output: …`, and
 *   `</untrusted_context>` after the sections (left out of the saved text too).
 * - Codex (`exec_command` and its other shell tools): `Chunk ID: …`, `Wall time: … seconds`,
 *   `Process exited with code N` (or `Process running with session ID N`), `Original token
 *   count: N`, then `Output:` alone on its line (measured with codex 0.169.0 and 0.171.0); the
 *   older shell tool's `Exit code: N` and `Total output lines: N` are read too.
 *
 * Only these tools, and only a header of exactly these lines: any other output is saved whole.
 */
import { leadingSections, unwrap } from './shellOutput.js';

/** The shell tool of gemini-cli and qwen-code. */
const SHELL_TOOL = 'run_shell_command';
/** Codex's shell tools, by the function name the model calls. */
const CODEX_SHELL_TOOLS: ReadonlySet<string> = new Set([
  'exec_command',
  'shell',
  'shell_command',
  'local_shell',
]);

const CODEX_HEADER_LINE =
  /^(?:Chunk ID: \S+|Wall time: [^\n]+|Process exited with code -?\d+|Process running with session ID \d+|Original token count: \d+|Exit code: -?\d+|Total output lines: \d+)$/;
/** Codex writes four header lines; a few more leave room for a version that adds one. */
const MAX_CODEX_HEADER_LINES = 8;

export interface ClientShellHeader {
  /** The client's lines before the output, as they came (no final new line). */
  header: string;
  /** The rest: the command's output (qwen's with its `Output: ` prefix and trailing sections). */
  commandOutput: string;
}

function codexHeader(text: string): ClientShellHeader | undefined {
  let start = 0;
  for (let count = 0; count <= MAX_CODEX_HEADER_LINES; count++) {
    const end = text.indexOf('\n', start);
    const line = end < 0 ? text.slice(start) : text.slice(start, end);
    if (line === 'Output:') {
      if (count === 0) return undefined;
      return {
        header: text.slice(0, end < 0 ? text.length : end),
        commandOutput: end < 0 ? '' : text.slice(end + 1),
      };
    }
    if (end < 0 || !CODEX_HEADER_LINE.test(line)) return undefined;
    start = end + 1;
  }
  return undefined;
}

/** The client's header and the command's output, or undefined when the output has no header. */
export function splitClientShellHeader(
  toolName: string,
  text: string,
): ClientShellHeader | undefined {
  if (CODEX_SHELL_TOOLS.has(toolName)) return codexHeader(text);
  if (toolName !== SHELL_TOOL) return undefined;
  const { wrapper, inner, innerStart } = unwrap(text);
  const { leading, rest } = leadingSections(inner);
  if ((wrapper === undefined && leading.length === 0) || !rest.startsWith('Output:')) {
    return undefined;
  }
  const restStart = innerStart + inner.length - rest.length;
  return { header: text.slice(0, restStart - 1), commandOutput: rest };
}
