/**
 * The text a masked output is saved as, and so what `read_tool_output` reads back: the `output`
 * string itself when that is the whole response and well-formed Unicode (what the model read,
 * line for line), otherwise the response as pretty JSON. A shell command's output under a
 * client's header (qwen-code's Command and Directory lines, Codex's Chunk ID … Output: lines:
 * clientShellHeader.ts) is saved without it, so that line N of the file is line N of what the
 * command printed; the header stays in the snippet. The same response always gives the same
 * text, so its content-addressed file name is stable across passes.
 */
import { isWellFormed } from '../../utils/codePoints.js';
import { splitClientShellHeader } from '../clientShellHeader.js';

/**
 * The text saved on disk: the `output` string itself when that is the whole response (what the
 * model read, line for line; without a client's header before a command's output), otherwise
 * the response as pretty JSON. Throws on cycles or BigInt. An `output` with a lone surrogate has
 * no UTF-8 form (it would be saved as U+FFFD and not round-trip), so it is saved as JSON, which
 * escapes it.
 * @param toolName the function name of the response; none: no header is taken off
 */
export function fullOutputText(response: Record<string, unknown>, toolName = ''): string {
  const keys = Object.keys(response);
  const output = response['output'];
  if (keys.length === 1 && keys[0] === 'output' && typeof output === 'string') {
    if (isWellFormed(output)) {
      return splitClientShellHeader(toolName, output)?.commandOutput ?? output;
    }
  }
  const text = JSON.stringify(response, null, 2);
  if (typeof text !== 'string') throw new TypeError('response does not serialize to JSON');
  return text;
}
