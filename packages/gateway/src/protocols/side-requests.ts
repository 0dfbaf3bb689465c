/**
 * What the protocols' side-request rules share (each protocol's `isSideRequest`, in its usage.ts).
 * A side request is a client's one-shot structured call beside its conversation (a model router's
 * check, a session's title): the usage record marks it, and the dashboard folds it into its
 * session. Read from the body as it came, after the answer, with the cheap key scan: nothing here
 * changes what is sent or how it is masked. Every rule reads keys outside the conversation array,
 * so it is given the body without that array when the incremental reader has it (no walk over the
 * conversation).
 *
 * Not every client's is structured: OpenCode (1.18.33) names a session with a plain chat call (no
 * tools, no schema) told from a main turn only by its system prompt, "You are a title generator":
 * that text rule is the usage record's (usage/request-facts.ts), beside these.
 */
import { findArray, scanElements } from '../body/json-layout.js';

/** The answer type of gemini-cli's `generateJson` calls. */
export const JSON_ANSWER = 'application/json';

/** The structured-output format of Claude Code's and Codex's title calls. */
export const JSON_SCHEMA = 'json_schema';

/** Whether the body's `tools` is absent or an empty array (the one-shot calls send `[]`). */
export async function withoutTools(raw: Buffer): Promise<boolean> {
  const at = await findArray(raw, ['tools']);
  if (at < 0) return true;
  const first = await scanElements(raw, at + 1, undefined, 1);
  return first?.elements.length === 0;
}
