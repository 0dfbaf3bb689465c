/**
 * The `content` of an Anthropic `tool_result` block, read as the text the masking core sees and
 * written back with a snippet in place of that text.
 *
 * A tool result's content is a string, a list of content blocks (text, image, and others such as
 * `document` or Claude Code's `tool_reference`), or absent. Only its text is an output the pass
 * can mask: text blocks joined by newlines (separate chunks of one output, as an MCP tool returns
 * them). Blocks of any other type are never masked, counted or moved; they are kept, in their
 * order, beside the snippet.
 */
import { isPlainObject } from '@toolmask/core/utils';

type JsonObject = Record<string, unknown>;

/** Joins the text blocks of one result: separate chunks of one output. */
const TEXT_JOINER = '\n';

function isTextBlock(block: unknown): block is JsonObject & { text: string } {
  return isPlainObject(block) && block['type'] === 'text' && typeof block['text'] === 'string';
}

/**
 * The text of a tool result's content: the string, the text blocks of a list joined ('' when it
 * has none, or no content at all). Undefined for content of another shape (an object, a list
 * holding something that is not a typed block): the result is then left as it came.
 */
export function toolResultText(content: unknown): string | undefined {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const block of content) {
    if (!isPlainObject(block) || typeof block['type'] !== 'string') return undefined;
    if (block['type'] !== 'text') continue;
    if (!isTextBlock(block)) return undefined;
    texts.push(block.text);
  }
  return texts.join(TEXT_JOINER);
}

/**
 * `content` with its text replaced by `snippet`, in the shape it came in. A string becomes the
 * snippet. In a list, the snippet takes the place of the first text block (keeping that block's
 * other keys) and the other text blocks go; a `cache_control` breakpoint a dropped block carried
 * moves onto the snippet's block when that has none, in the same tool result: the client's
 * breakpoints are never more than it set (the provider allows four), and a result that had one
 * keeps one. Images and other blocks stay as they were, in order.
 */
export function withSnippet(content: unknown, snippet: string): unknown {
  if (!Array.isArray(content)) return snippet;
  let snippetBlock: JsonObject | undefined;
  const blocks: unknown[] = [];
  for (const block of content) {
    if (!isTextBlock(block)) {
      blocks.push(block);
      continue;
    }
    if (!snippetBlock) {
      snippetBlock = { ...block, text: snippet };
      blocks.push(snippetBlock);
    } else if (
      block['cache_control'] !== undefined &&
      snippetBlock['cache_control'] === undefined
    ) {
      snippetBlock['cache_control'] = block['cache_control'];
    }
  }
  // No text block to take the snippet's place (there was no text to mask): the content as it was.
  return snippetBlock ? blocks : content;
}
