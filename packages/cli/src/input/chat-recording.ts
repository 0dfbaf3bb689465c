/**
 * gemini-cli chat recordings (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, as
 * @google/gemini-cli-core 0.61.0 writes them) turned into the `Content[]` the model was sent.
 *
 * The file is JSON Lines: a metadata line (`sessionId`, `projectHash`, ...), then message records
 * (`id`, `type`, `content`, ...) appended as they happen. A message written again with the same id
 * replaces the earlier one in place (tool calls are added to the model message that way),
 * `{"$set": {...}}` updates metadata (with `messages`: a checkpoint that replaces them all) and
 * `{"$rewindTo": id}` drops that message and everything after it. Older versions wrote one JSON
 * object `{ sessionId, projectHash, messages: [...] }`; that is accepted too.
 *
 * Conversion follows what was sent to the model:
 * - `info`, `error` and `warning` messages are the UI's, never sent; nor are slash commands.
 * - A `gemini` message becomes a model content: its text plus its function calls (from the
 *   content when recorded there, else from `toolCalls`). Thought summaries are left out.
 * - Tool results: the `user` message of functionResponse parts that follows the model message is
 *   what was sent; when a recording has none, the results stored in `toolCalls` stand in for it.
 */
import type { Content, Part } from '../replay/types.js';
import { isPlainObject } from '@toolmask/core/utils';
import { ToolmaskError } from '@toolmask/core/errors';
import { TimeSpan } from './agent-session.js';
import { timeOf } from './history-builder.js';

type JsonObject = Record<string, unknown>;

export interface ChatMessageRecord extends JsonObject {
  id: string;
  type?: unknown;
  content?: unknown;
  toolCalls?: unknown;
}

export interface ParsedChatRecording {
  sessionId: string;
  messages: ChatMessageRecord[];
  /** Lines that could not be read (only a torn last line is tolerated). */
  warnings: string[];
  /** Milliseconds since the epoch of the first and last recorded moment, when there are some. */
  startedAt?: number;
  updatedAt?: number;
}

/**
 * What is wrong with a recording; the loader prefixes the file name. Code `NOT_A_CHAT_RECORDING`
 * (the file is no chat recording at all) or `INVALID_CHAT_RECORDING` (a damaged one).
 */
export class ChatRecordingFormatError extends ToolmaskError<
  'NOT_A_CHAT_RECORDING' | 'INVALID_CHAT_RECORDING'
> {
  constructor(
    message: string,
    /** The file is no chat recording at all (rather than a damaged one). */
    readonly notARecording = false,
  ) {
    super(notARecording ? 'NOT_A_CHAT_RECORDING' : 'INVALID_CHAT_RECORDING', message);
  }
}

function isMessageRecord(value: unknown): value is ChatMessageRecord {
  return isPlainObject(value) && typeof value['id'] === 'string';
}

function isMetadataRecord(value: JsonObject): boolean {
  return typeof value['sessionId'] === 'string' && typeof value['projectHash'] === 'string';
}

/** True when the first line of `text` is a chat recording's metadata line. */
export function looksLikeChatRecordingJsonl(text: string): boolean {
  const firstLine = text.slice(0, text.indexOf('\n') === -1 ? undefined : text.indexOf('\n'));
  try {
    const record: unknown = JSON.parse(firstLine);
    return isPlainObject(record) && isMetadataRecord(record);
  } catch {
    return false;
  }
}

/** True for the older single-object format. */
export function isLegacyChatRecord(value: unknown): value is JsonObject & { messages: unknown[] } {
  return (
    isPlainObject(value) &&
    typeof value['sessionId'] === 'string' &&
    Array.isArray(value['messages'])
  );
}

export function parseChatRecordingJsonl(text: string): ParsedChatRecording {
  const lines = text.split('\n');
  const messages = new Map<string, ChatMessageRecord>();
  const warnings: string[] = [];
  // The metadata's `startTime` and `lastUpdated`, and every message's `timestamp` (`--since`).
  const time = new TimeSpan();
  const seeTimes = (record: JsonObject) => {
    for (const key of ['startTime', 'lastUpdated', 'timestamp']) time.see(timeOf(record[key]));
  };
  let sessionId: string | undefined;
  let lastNonEmpty = lines.length - 1;
  while (lastNonEmpty >= 0 && !(lines[lastNonEmpty] ?? '').trim()) lastNonEmpty--;

  const setMessages = (list: readonly unknown[]) => {
    messages.clear();
    for (const message of list) {
      if (!isMessageRecord(message)) continue;
      messages.set(message.id, message);
      seeTimes(message);
    }
  };

  for (const [index, line] of lines.entries()) {
    if (!line.trim()) continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      // A crash while appending leaves a torn last line; gemini-cli skips it on resume too.
      if (index === lastNonEmpty && sessionId !== undefined) {
        warnings.push(`line ${index + 1} is cut off and was skipped`);
        continue;
      }
      throw new ChatRecordingFormatError(`line ${index + 1} is not valid JSON`);
    }
    if (!isPlainObject(record)) {
      throw new ChatRecordingFormatError(`line ${index + 1} is not a JSON object`);
    }
    if (typeof record['$rewindTo'] === 'string') {
      const ids = [...messages.keys()];
      const at = ids.indexOf(record['$rewindTo']);
      for (const id of at === -1 ? ids : ids.slice(at)) messages.delete(id);
    } else if (isMessageRecord(record)) {
      messages.set(record.id, record);
      seeTimes(record);
    } else if (isPlainObject(record['$set'])) {
      const update = record['$set'];
      seeTimes(update);
      if (typeof update['sessionId'] === 'string') sessionId = update['sessionId'];
      if (Array.isArray(update['messages'])) setMessages(update['messages']);
    } else if (isMetadataRecord(record)) {
      sessionId = record['sessionId'] as string;
      seeTimes(record);
      if (Array.isArray(record['messages'])) setMessages(record['messages']);
    }
    // Other records are newer additions this reader does not need.
    if (index === 0 && sessionId === undefined) {
      throw new ChatRecordingFormatError(
        'not a gemini-cli chat recording: the first line has no sessionId and projectHash',
        true,
      );
    }
  }
  if (sessionId === undefined) {
    throw new ChatRecordingFormatError(
      'not a gemini-cli chat recording: no session metadata',
      true,
    );
  }
  return { sessionId, messages: [...messages.values()], warnings, ...time.span };
}

export function parseLegacyChatRecord(value: JsonObject & { messages: unknown[] }) {
  return {
    sessionId: value['sessionId'] as string,
    messages: value.messages.filter(isMessageRecord),
    warnings: [] as string[],
  };
}

function toParts(content: unknown): Part[] {
  if (content === undefined || content === null || content === '') return [];
  const list = Array.isArray(content) ? content : [content];
  const parts: Part[] = [];
  for (const item of list) {
    if (typeof item === 'string') parts.push({ text: item });
    else if (isPlainObject(item)) parts.push(item as Part);
  }
  return parts;
}

function isToolResponseTurn(parts: readonly Part[]): boolean {
  return parts.length > 0 && parts.every((part) => part.functionResponse !== undefined);
}

/** User text the CLI handles itself and never sends: empty input, `/commands`, `?` help. */
function isLocalUserInput(parts: readonly Part[]): boolean {
  if (parts.some((part) => part.text === undefined)) return false;
  const text = parts
    .map((part) => part.text ?? '')
    .join('')
    .trim();
  return text.length === 0 || text.startsWith('/') || text.startsWith('?');
}

function toolCallList(message: ChatMessageRecord): JsonObject[] {
  return Array.isArray(message.toolCalls) ? message.toolCalls.filter(isPlainObject) : [];
}

function modelParts(message: ChatMessageRecord): Part[] {
  const content = toParts(message.content).filter((part) => part.thought !== true);
  if (content.some((part) => part.functionCall)) return content;
  const parts = content.filter((part) => part.text === undefined || part.text.length > 0);
  for (const call of toolCallList(message)) {
    parts.push({
      functionCall: {
        id: call['id'] as string,
        name: call['name'] as string,
        args: (call['args'] ?? {}) as Record<string, unknown>,
      },
    });
  }
  return parts;
}

function storedToolResults(message: ChatMessageRecord): Part[] {
  const parts: Part[] = [];
  for (const call of toolCallList(message)) {
    const result = call['result'];
    if (result === undefined || result === null) continue;
    if (typeof result === 'string') {
      parts.push({
        functionResponse: {
          id: call['id'] as string,
          name: call['name'] as string,
          response: { output: result },
        },
      });
    } else {
      parts.push(...toParts(result));
    }
  }
  return parts;
}

export function chatMessagesToContents(messages: readonly ChatMessageRecord[]): Content[] {
  const contents: Content[] = [];
  let storedResults: Part[] = [];
  const flushStoredResults = () => {
    if (storedResults.length > 0) contents.push({ role: 'user', parts: storedResults });
    storedResults = [];
  };

  for (const message of messages) {
    if (message.type === 'user') {
      const parts = toParts(message.content);
      if (isToolResponseTurn(parts)) {
        storedResults = []; // the recorded turn is what was sent
        contents.push({ role: 'user', parts });
        continue;
      }
      flushStoredResults();
      if (!isLocalUserInput(parts)) contents.push({ role: 'user', parts });
    } else if (message.type === 'gemini') {
      flushStoredResults();
      const parts = modelParts(message);
      if (parts.length > 0) contents.push({ role: 'model', parts });
      storedResults = storedToolResults(message);
    }
  }
  flushStoredResults();
  return contents;
}
