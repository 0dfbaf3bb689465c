/**
 * What the usage record says about a request beside its figures, for the dashboard's sessions:
 * whether it is a side request, and a digest of its session signal. Read from the body as it came,
 * after the answer (off the client's path), with the cheap key scan the pipeline uses for the
 * session: nothing here changes what is sent or how it is masked.
 *
 * A side request is a client's one-shot structured call beside its conversation. gemini-cli's
 * `generateJson` (the model router's complexity check, the next-speaker check) sets
 * `generationConfig.responseMimeType` to `application/json` with a `responseJsonSchema`; a main
 * turn never does. qwen-code's `generateJson` over OpenAI sends one `respond_in_schema` tool with
 * `tool_choice: "required"`, which a main turn never sets; `response_format` is OpenAI's own way.
 *
 * Claude Code (2.1.328, interactive) names a session with a Messages call of `tools: []` and
 * `output_config.format.type: "json_schema"` (a `title` object); Codex (0.169.0, its terminal UI)
 * with a Responses call of `tools: []` and `text.format.type: "json_schema"` (`codex_output_schema`,
 * a `title`). Both are seen from the real binaries against a loopback fake; their headless runs
 * (`claude -p`, `codex exec`) make none. A schema alone is not enough: `codex exec
 * --output-schema` puts one on its main turns too, which carry the agent's tools.
 *
 * OpenCode (1.18.33) names a session with a plain chat call (a "title generator" system message,
 * no tools, no schema): nothing structured tells it from a main turn of a model configured without
 * tools, so it is left a conversation of its own rather than guessed at.
 */
import { findArray, scanElements, stringAt } from '../body/json-layout.js';
import { sessionSignal, type ModelExchange } from '../pipeline/model-exchange.js';
import { sessionDigestOf } from './session-digest.js';
import type { UsageRecord } from './usage-record.js';

const JSON_ANSWER = 'application/json';
const JSON_SCHEMA = 'json_schema';

/** Whether the body's `tools` is absent or an empty array (the one-shot calls send `[]`). */
async function withoutTools(raw: Buffer): Promise<boolean> {
  const at = await findArray(raw, ['tools']);
  if (at < 0) return true;
  const first = await scanElements(raw, at + 1, undefined, 1);
  return first?.elements.length === 0;
}

async function isSideRequest(exchange: ModelExchange): Promise<boolean> {
  const raw = exchange.raw;
  if (!raw) return false;
  switch (exchange.protocol.kind) {
    case 'openai':
      return (
        (await stringAt(raw, ['tool_choice'])) === 'required' ||
        /^json_(schema|object)$/.test((await stringAt(raw, ['response_format', 'type'])) ?? '')
      );
    case 'anthropic':
      return (
        (await stringAt(raw, ['output_config', 'format', 'type'])) === JSON_SCHEMA &&
        (await withoutTools(raw))
      );
    case 'openai-responses':
      return (
        (await stringAt(raw, ['text', 'format', 'type'])) === JSON_SCHEMA &&
        (await withoutTools(raw))
      );
    case 'code-assist':
      return (
        (await stringAt(raw, ['request', 'generationConfig', 'responseMimeType'])) === JSON_ANSWER
      );
    default:
      return (await stringAt(raw, ['generationConfig', 'responseMimeType'])) === JSON_ANSWER;
  }
}

/** The session signal as the conversation key reads it, digested (the record never holds it raw). */
async function sessionDigest(exchange: ModelExchange): Promise<string | undefined> {
  const session = await sessionSignal(exchange);
  if (!session) return undefined;
  return sessionDigestOf(session);
}

/** The record's `side` and `session` fields (absent when false or unknown); never throws. */
export async function sideFacts(
  exchange: ModelExchange,
): Promise<Pick<UsageRecord, 'side' | 'session'>> {
  try {
    const [side, session] = await Promise.all([isSideRequest(exchange), sessionDigest(exchange)]);
    return { ...(side ? { side: true as const } : {}), ...(session ? { session } : {}) };
  } catch {
    return {}; // a figure for the dashboard only: never a reason to lose the record
  }
}
