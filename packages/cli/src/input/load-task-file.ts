/**
 * Reads one recorded session file: a JSON array of `Content`, a gemini-cli chat recording (JSON
 * Lines, or the older single JSON object), or an OpenAI-style transcript (a JSON array of chat
 * messages, or a `{ messages }` request body). Anything else is an `InputError` naming the file.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { PricingName } from '../replay/pricing.js';
import type { ReplayTask } from '../replay/types.js';
import {
  ChatRecordingFormatError,
  chatMessagesToContents,
  isLegacyChatRecord,
  looksLikeChatRecordingJsonl,
  parseChatRecordingJsonl,
  parseLegacyChatRecord,
  type ParsedChatRecording,
} from './chat-recording.js';
import { describeContentArrayProblem } from './content-array.js';
import { InputError } from './input-error.js';
import {
  OpenAiTranscriptError,
  openAiMessagesOf,
  openAiTranscriptToContents,
} from './openai-transcript.js';

export interface LoadedTask extends ReplayTask {
  file: string;
  format:
    | 'content-array'
    | 'chat-recording'
    | 'openai-messages'
    | 'claude-code'
    | 'codex'
    | 'opencode'
    | 'qwen-code';
  warnings: string[];
  /** Whose prompt cache the session ran against: the default `--pricing` (load-session-file.ts). */
  provider?: PricingName;
  /** Milliseconds since the epoch of the session's first and last recorded moment, when known. */
  startedAt?: number;
  updatedAt?: number;
}

function taskLabel(file: string): string {
  return path.basename(file).replace(/\.jsonl?$/i, '');
}

function fromRecording(file: string, recording: ParsedChatRecording): LoadedTask {
  const contents = chatMessagesToContents(recording.messages);
  if (contents.length === 0) {
    throw new InputError(file, 'the chat recording has no messages that were sent to the model');
  }
  return {
    file,
    label: taskLabel(file),
    format: 'chat-recording',
    contents,
    warnings: recording.warnings,
    ...(recording.startedAt !== undefined ? { startedAt: recording.startedAt } : {}),
    ...(recording.updatedAt !== undefined ? { updatedAt: recording.updatedAt } : {}),
  };
}

function fromOpenAiMessages(file: string, messages: readonly unknown[]): LoadedTask {
  try {
    const { contents, recordedUsage, warnings } = openAiTranscriptToContents(messages);
    const task: LoadedTask = {
      file,
      label: taskLabel(file),
      format: 'openai-messages',
      contents,
      warnings,
    };
    if (recordedUsage.some((usage) => usage !== undefined)) task.recordedUsage = recordedUsage;
    return task;
  } catch (error) {
    if (error instanceof OpenAiTranscriptError) {
      throw new InputError(file, `not an OpenAI-style transcript: ${error.message}`);
    }
    throw error;
  }
}

/** Whether a parsed array holds something else than Content (its first item has no role or parts). */
function isOtherArray(value: readonly unknown[]): boolean {
  const first: unknown = value[0];
  return (
    value.length === 0 ||
    typeof first !== 'object' ||
    first === null ||
    !('role' in first || 'parts' in first)
  );
}

function jsonErrorReason(error: unknown): string {
  const detail = error instanceof Error ? error.message : String(error);
  return `not valid JSON (${detail})`;
}

export async function loadTaskFile(file: string): Promise<LoadedTask> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new InputError(file, `cannot be read (${code})`);
  }
  if (!text.trim()) throw new InputError(file, 'the file is empty');

  try {
    if (file.toLowerCase().endsWith('.jsonl') || looksLikeChatRecordingJsonl(text)) {
      return fromRecording(file, parseChatRecordingJsonl(text));
    }
  } catch (error) {
    if (error instanceof ChatRecordingFormatError) {
      throw new InputError(file, error.message, error.notARecording ? 'not-a-session' : 'invalid');
    }
    throw error;
  }

  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputError(file, jsonErrorReason(error));
  }
  if (isLegacyChatRecord(value)) return fromRecording(file, parseLegacyChatRecord(value));
  const messages = openAiMessagesOf(value);
  if (messages) return fromOpenAiMessages(file, messages);
  if (!Array.isArray(value)) {
    throw new InputError(
      file,
      'not a session: expected a JSON array of Content, a gemini-cli chat recording or OpenAI-style chat messages',
      'not-a-session',
    );
  }
  const problem = describeContentArrayProblem(value);
  if (problem) {
    const kind = isOtherArray(value) ? 'not-a-session' : 'invalid';
    throw new InputError(file, `not a Content array: ${problem}`, kind);
  }
  return {
    file,
    label: taskLabel(file),
    format: 'content-array',
    contents: value,
    warnings: [],
  };
}
