/**
 * OpenCode sessions (opencode 1.18.33) turned into what the model was sent. OpenCode keeps its
 * sessions in a SQLite database (`~/.local/share/opencode/opencode.db`: tables `session`,
 * `message`, `part`, each row's JSON in `data`); `opencode export <sessionID>` prints one session
 * as JSON, `{ info, messages: [{ info, parts }] }`, which is what this reads; the database reader
 * (opencode-database.ts) builds the same shape from the rows, so both go through this converter.
 *
 * - A `user` message: its `text` parts (not `ignored` ones) and image `file` parts (data URLs).
 * - An `assistant` message is one model call (one step): its `text` parts and one function call
 *   per `tool` part (`callID`, `tool`, `state.input`), then one user content of the results
 *   (`state.output`, or `state.error` for a failed call; a call still pending has none). Its
 *   `info.tokens` is that call's usage: `input` (uncached), `cache.read`, `cache.write`.
 * - A user message with a `compaction` part: OpenCode summarised the session there; what follows
 *   is a new history. `reasoning`, step and snapshot parts are not sent as history: left out.
 * A tool output OpenCode's prune later cleared is replayed whole, as it was first sent.
 */
import type { Part } from '../replay/types.js';
import { isPlainObject } from '@toolmask/core/utils';
import type { PricingName } from '../replay/pricing.js';
import { TimeSpan, type AgentSessionRead } from './agent-session.js';
import { HistoryBuilder, countOf, imagePart, timeOf } from './history-builder.js';

type JsonObject = Record<string, unknown>;

export interface OpencodeSession {
  info: JsonObject;
  messages: Array<{ info: JsonObject; parts: unknown[] }>;
}

/** Whether a parsed JSON value is an `opencode export` of a session. */
export function isOpencodeExport(value: unknown): value is OpencodeSession {
  if (!isPlainObject(value) || !isPlainObject(value['info'])) return false;
  const messages = value['messages'];
  return (
    typeof value['info']['id'] === 'string' &&
    Array.isArray(messages) &&
    messages.every(
      (message) =>
        isPlainObject(message) && isPlainObject(message['info']) && Array.isArray(message['parts']),
    )
  );
}

/** Which cache rules apply: the provider the session's model came from. */
function providerOf(providerId: unknown): PricingName {
  if (typeof providerId !== 'string') return 'openai';
  if (/anthropic/i.test(providerId)) return 'anthropic';
  if (/google|gemini|vertex/i.test(providerId)) return 'gemini';
  return 'openai';
}

function filePart(part: JsonObject): Part | undefined {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(String(part['url'] ?? ''));
  return match && String(part['mime'] ?? match[1]).startsWith('image/')
    ? imagePart(part['mime'] ?? match[1], match[2])
    : undefined;
}

function resultOf(state: JsonObject): string | undefined {
  if (state['status'] === 'completed') return String(state['output'] ?? '');
  if (state['status'] === 'error') return String(state['error'] ?? '');
  return undefined;
}

export function opencodeSessionToHistory(session: OpencodeSession): AgentSessionRead {
  const builder = new HistoryBuilder();
  const times = new TimeSpan();
  let skippedFiles = 0;
  let provider: unknown = isPlainObject(session.info['model'])
    ? session.info['model']['providerID']
    : undefined;
  const sessionTime = session.info['time'];
  if (isPlainObject(sessionTime)) {
    times.see(timeOf(sessionTime['created']));
    times.see(timeOf(sessionTime['updated']));
  }

  for (const { info, parts: rawParts } of session.messages) {
    const parts = rawParts.filter(isPlainObject);
    const time = info['time'];
    if (isPlainObject(time)) times.see(timeOf(time['created']));
    if (info['role'] === 'user') {
      if (parts.some((part) => part['type'] === 'compaction')) {
        builder.restart();
        continue;
      }
      const content: Part[] = [];
      for (const part of parts) {
        if (
          part['type'] === 'text' &&
          typeof part['text'] === 'string' &&
          part['ignored'] !== true
        ) {
          content.push({ text: part['text'] });
        } else if (part['type'] === 'file') {
          const image = filePart(part);
          if (image) content.push(image);
          else skippedFiles++;
        }
      }
      builder.user(content);
      continue;
    }
    if (info['role'] !== 'assistant') continue;
    provider ??= info['providerID'];
    builder.closeAnswer();
    const calls: Part[] = [];
    const results: Array<{ id: string; name: string; output: string }> = [];
    for (const part of parts) {
      if (part['type'] === 'text' && typeof part['text'] === 'string' && part['text']) {
        calls.push({ text: part['text'] });
      } else if (part['type'] === 'tool' && isPlainObject(part['state'])) {
        const id = String(part['callID'] ?? part['id'] ?? '');
        const name = String(part['tool'] ?? 'unknown');
        const input = part['state']['input'];
        calls.push({ functionCall: { id, name, args: isPlainObject(input) ? input : {} } });
        const output = resultOf(part['state']);
        if (output !== undefined) results.push({ id, name, output });
      }
    }
    builder.model(calls, { newAnswer: true });
    const tokens = info['tokens'];
    if (calls.length > 0 && isPlainObject(tokens)) {
      const cache = isPlainObject(tokens['cache']) ? tokens['cache'] : {};
      const input = countOf(tokens['input']) ?? 0;
      const read = countOf(cache['read']) ?? 0;
      const write = countOf(cache['write']) ?? 0;
      if (input + read + write > 0) {
        builder.usage({
          promptTokens: input + read + write,
          cachedTokens: read,
          cacheWriteTokens: write,
        });
      }
    }
    for (const result of results) builder.toolResult(result.id, result.output, [], result.name);
  }

  const warnings: string[] = [];
  if (skippedFiles > 0)
    warnings.push(`${skippedFiles} attached file(s) that are not images left out`);
  return { histories: builder.finish(), provider: providerOf(provider), ...times.span, warnings };
}
