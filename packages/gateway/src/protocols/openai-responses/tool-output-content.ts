/**
 * The `output` of a Responses tool output item, read as the text the masking core sees and
 * written back with a snippet in place of that text, in the shape it came in.
 *
 * - `function_call_output`, `custom_tool_call_output`, `apply_patch_call_output`: a string, or a
 *   list of content items (`input_text`, `input_image`, `input_file`). Codex sends a shell
 *   command's output as a string and an MCP tool's result as a list (its header, `Wall time: ...
 *   Output:`, then one `input_text` per text block of the result).
 * - `local_shell_call_output`: a string.
 * - `shell_call_output`: a list of chunks `{ stdout, stderr, outcome }`.
 *
 * Only text is an output the pass can mask: the text items of a list joined by newlines (separate
 * chunks of one output). Images and files are never masked, counted or moved; they stay, in their
 * order, beside the snippet.
 */
import { isPlainObject } from '@toolmask/core/utils';

type JsonObject = Record<string, unknown>;

/** Joins the text items (or shell chunks) of one output: separate chunks of one output. */
const TEXT_JOINER = '\n';

const TEXT_ITEM_TYPES = new Set(['input_text', 'output_text', 'text']);

function isTextItem(item: unknown): item is JsonObject & { text: string } {
  return (
    isPlainObject(item) &&
    TEXT_ITEM_TYPES.has(item['type'] as string) &&
    typeof item['text'] === 'string'
  );
}

/** A `shell_call_output` chunk: what the command printed, and how it ended. */
function isShellChunk(chunk: unknown): chunk is JsonObject {
  return (
    isPlainObject(chunk) &&
    (chunk['stdout'] === undefined || typeof chunk['stdout'] === 'string') &&
    (chunk['stderr'] === undefined || typeof chunk['stderr'] === 'string')
  );
}

function shellChunkText(chunk: JsonObject): string {
  return [chunk['stdout'], chunk['stderr']]
    .filter((text): text is string => typeof text === 'string' && text !== '')
    .join(TEXT_JOINER);
}

/**
 * The text of an item's `output`: the string; the text items of a list joined ('' when it has
 * none, or no output at all); a shell call's chunks, stdout and stderr. Undefined for output of
 * another shape (an object, a list holding something that is not a typed item): the item is then
 * left as it came.
 */
export function outputText(itemType: string, output: unknown): string | undefined {
  if (output === undefined || output === null) return '';
  if (typeof output === 'string') return output;
  if (!Array.isArray(output)) return undefined;
  if (itemType === 'shell_call_output') {
    if (!output.every(isShellChunk)) return undefined;
    return (output as JsonObject[]).map(shellChunkText).join(TEXT_JOINER);
  }
  const texts: string[] = [];
  for (const item of output) {
    if (!isPlainObject(item) || typeof item['type'] !== 'string') return undefined;
    if (!TEXT_ITEM_TYPES.has(item['type'])) continue;
    if (!isTextItem(item)) return undefined;
    texts.push(item.text);
  }
  return texts.join(TEXT_JOINER);
}

/**
 * `output` with its text replaced by `snippet`, in the shape it came in. A string (or nothing)
 * becomes the snippet. In a list of content items, the snippet takes the place of the first text
 * item (keeping its other keys) and the other text items go; images and files stay, in order. A
 * shell call's chunks become one, the last one's (its `outcome` says how the command ended), with
 * the snippet as its stdout.
 */
export function withSnippet(itemType: string, output: unknown, snippet: string): unknown {
  if (!Array.isArray(output)) return snippet;
  if (itemType === 'shell_call_output') {
    const last = output.at(-1);
    return [{ ...(isPlainObject(last) ? last : {}), stdout: snippet, stderr: '' }];
  }
  let placed = false;
  const items: unknown[] = [];
  for (const item of output) {
    if (!isTextItem(item)) items.push(item);
    else if (!placed) {
      placed = true;
      items.push({ ...item, text: snippet });
    }
  }
  // No text item to take the snippet's place (there was no text to mask): the output as it was.
  return placed ? items : output;
}
