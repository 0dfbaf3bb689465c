/**
 * The call that produced a tool output, as the history holds it: its arguments and the model's
 * text in the same turn (what the model said it was looking for). A preview is built from the
 * output and this, nothing else: what the pass knows when it masks.
 */
import type { Content, Part } from '@google/gemini-cli-core';

export interface ToolCall {
  /** The call's arguments (`functionCall.args`). */
  args?: unknown;
  /** The text parts of the model turn that made the call, joined by new lines. */
  turnText?: string;
}

/** How many entries before a response its call may be (a turn's calls, then its responses). */
const LOOK_BACK = 8;
/** Characters of the turn's text kept (what the model says before a call is short). */
const MAX_TURN_TEXT = 16 * 1024;

/**
 * The call of the response `{ id, name }` at `contentIndex` of `history`: the nearest earlier model
 * turn (within `LOOK_BACK` entries) with a call of that id, or of that name when the response has
 * no id. Undefined when there is none. Never throws on odd entries.
 */
export function findToolCall(
  history: readonly Content[],
  contentIndex: number,
  response: { id?: unknown; name?: unknown },
): ToolCall | undefined {
  const id = typeof response.id === 'string' && response.id !== '' ? response.id : undefined;
  const name = typeof response.name === 'string' ? response.name : undefined;
  for (let index = contentIndex - 1; index >= Math.max(0, contentIndex - LOOK_BACK); index--) {
    const content = history[index];
    if (content?.role !== 'model' || !Array.isArray(content.parts)) continue;
    const parts = content.parts;
    let call: NonNullable<(typeof parts)[number]['functionCall']> | undefined;
    for (const part of parts) {
      const functionCall = part?.functionCall;
      if (
        functionCall &&
        (id !== undefined ? functionCall.id === id : functionCall.name === name)
      ) {
        call = functionCall;
        break;
      }
    }
    if (!call) continue;
    return {
      ...(call.args !== undefined ? { args: call.args } : {}),
      ...turnTextOf(parts),
    };
  }
  return undefined;
}

/** The text parts of a turn, joined by new lines and cut at `MAX_TURN_TEXT`; none when empty. */
function turnTextOf(parts: readonly Part[]): { turnText?: string } {
  let turnText = '';
  let texts = 0;
  for (const part of parts) {
    const text = part?.text;
    if (typeof text !== 'string') continue;
    turnText = texts === 0 ? text : `${turnText}\n${text}`;
    texts++;
  }
  return turnText ? { turnText: turnText.slice(0, MAX_TURN_TEXT) } : {};
}
