/**
 * The text a masked output is saved as, and so what `read_tool_output` reads back: the `output`
 * string itself when that is the whole response and well-formed Unicode (what the model read,
 * line for line), otherwise the response as pretty JSON. The same response always gives the
 * same text, so its content-addressed file name is stable across passes.
 */
import { isWellFormed } from '../../utils/codePoints.js';

/**
 * The text saved on disk: the `output` string itself when that is the whole response (what the
 * model read, line for line), otherwise the response as pretty JSON. Throws on cycles or BigInt.
 * An `output` with a lone surrogate has no UTF-8 form (it would be saved as U+FFFD and not
 * round-trip), so it is saved as JSON, which escapes it.
 */
export function fullOutputText(response: Record<string, unknown>): string {
  const keys = Object.keys(response);
  const output = response['output'];
  if (keys.length === 1 && keys[0] === 'output' && typeof output === 'string') {
    if (isWellFormed(output)) return output;
  }
  const text = JSON.stringify(response, null, 2);
  if (typeof text !== 'string') throw new TypeError('response does not serialize to JSON');
  return text;
}
