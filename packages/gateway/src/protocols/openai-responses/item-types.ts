/**
 * The OpenAI Responses API's item types that answer a tool call, in one place for both readers of
 * Responses items: the gateway's front (input-items.ts) and the CLI's reader of Codex rollout files
 * (`packages/cli/src/input/codex-rollout.ts`), which imports this file through the light subpath
 * `@toolmask/gateway/responses-item-types` without loading the gateway. No imports: loading it
 * costs nothing.
 *
 * Two lists, because a call is answered in two ways:
 * - `TOOL_OUTPUT_ITEM_TYPES`: items whose `output` holds what the tool printed (a string, or
 *   content items). These are what masking is about: the gateway masks their text, the replay
 *   counts it.
 * - `TEXTLESS_OUTPUT_ITEM_TYPES`: items that answer a call with no `output`. A `tool_search_output`
 *   (the answer to a `tool_search_call`; Codex records both in its rollouts) carries the
 *   definitions of the tools the search loaded, in `tools`, which the model needs whole to call
 *   them. The replay keeps it as its call's (empty) result, so that the turns and requests of a
 *   rollout stay where they were; the gateway leaves it as it leaves any other item: it has no
 *   text to mask, and taken for a tool output it would count as one it cannot read, a masking
 *   failure on every tool search.
 */

/** Items whose `output` is a tool's result: the text the pass may mask. */
export const TOOL_OUTPUT_ITEM_TYPES = [
  'function_call_output',
  'custom_tool_call_output',
  'local_shell_call_output',
  'shell_call_output',
  'apply_patch_call_output',
] as const;

/** Items that answer a call without an `output` text (a tool search's loaded tools). */
export const TEXTLESS_OUTPUT_ITEM_TYPES = ['tool_search_output'] as const;
