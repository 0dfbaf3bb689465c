/**
 * Reads one session file in any format `toolmask replay` knows, told apart by content (the name
 * only breaks ties): the agents' own session files, streamed line by line (Claude Code
 * transcripts, Codex rollouts, qwen-code chat recordings), OpenCode's database (one task or more per session in it) and an
 * `opencode export` of one session, and the formats of `loadTaskFile` (Content arrays, gemini-cli
 * chat recordings, OpenAI-style transcripts). A file may give several tasks: an agent that
 * compacted its context started a new history there.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { PricingName } from '../replay/pricing.js';
import type { AgentSessionRead } from './agent-session.js';
import { isClaudeTranscriptRecord, readClaudeTranscript } from './claude-transcript.js';
import { isCodexRolloutRecord, readCodexRollout } from './codex-rollout.js';
import { firstLineRecord, readHead } from './first-line.js';
import { InputError } from './input-error.js';
import { JsonLinesError } from './json-lines.js';
import { loadTaskFile, type LoadedTask } from './load-task-file.js';
import { openOpencodeDatabase } from './opencode-database.js';
import { isOpencodeExport, opencodeSessionToHistory } from './opencode-session.js';
import { isQwenChatRecord, readQwenChat } from './qwen-chat.js';

/** What the loader expects of a JSON Lines file that is none of the formats it knows. */
const JSONL_EXPECTED =
  'not a session: expected a Claude Code transcript, a Codex session file, a qwen-code or gemini-cli chat recording (JSON Lines)';

/** How an SQLite database starts (OpenCode keeps its sessions in one). */
const SQLITE_HEADER = 'SQLite format 3\u0000';

/** How `opencode export` starts its pretty-printed JSON (the session's `info` first). */
const OPENCODE_EXPORT_OPENING = /^\s*\{\s*"info"\s*:/;

/** Whose cache rules price each of the formats `loadTaskFile` reads. */
const LEGACY_PROVIDER: Record<string, PricingName> = {
  'content-array': 'gemini',
  'chat-recording': 'gemini',
  'openai-messages': 'openai',
};

function taskLabel(file: string): string {
  return path.basename(file).replace(/\.jsonl?$/i, '');
}

/** The histories of a read that hold a message sent to the model, as tasks named `label`. */
function historiesToTasks(
  file: string,
  label: string,
  format: LoadedTask['format'],
  read: AgentSessionRead,
): LoadedTask[] {
  const histories = read.histories.filter((history) =>
    history.contents.some((content) => content.role === 'user'),
  );
  return histories.map((history, index) => {
    const task: LoadedTask = {
      file,
      label: histories.length === 1 ? label : `${label}#${index + 1}`,
      format,
      provider: read.provider,
      contents: history.contents,
      // Said once per session, not once per history.
      warnings: index === 0 ? read.warnings : [],
      ...(read.startedAt !== undefined ? { startedAt: read.startedAt } : {}),
      ...(read.updatedAt !== undefined ? { updatedAt: read.updatedAt } : {}),
    };
    if (history.recordedUsage.some((usage) => usage !== undefined)) {
      task.recordedUsage = history.recordedUsage;
    }
    return task;
  });
}

const NO_MESSAGES = 'not a session: it has no messages that were sent to the model';

function toTasks(file: string, format: LoadedTask['format'], read: AgentSessionRead): LoadedTask[] {
  const tasks = historiesToTasks(file, taskLabel(file), format, read);
  if (tasks.length === 0) throw new InputError(file, NO_MESSAGES, 'not-a-session');
  return tasks;
}

/**
 * Every session of an OpenCode database, each named by its id (as `opencode export` files are);
 * sessions with nothing sent to the model (created, then left) are left out.
 */
async function readOpencodeDatabase(file: string): Promise<LoadedTask[]> {
  let database;
  try {
    database = await openOpencodeDatabase(file);
  } catch (error) {
    if (error instanceof InputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code) throw new InputError(file, `cannot be read (${code})`);
    throw error;
  }
  try {
    const tasks: LoadedTask[] = [];
    for (const session of database.sessions()) {
      const label = String(session.info['id']);
      tasks.push(...historiesToTasks(file, label, 'opencode', opencodeSessionToHistory(session)));
    }
    if (tasks.length === 0) {
      throw new InputError(
        file,
        'not a session: an OpenCode database with no messages that were sent to the model',
        'not-a-session',
      );
    }
    return tasks;
  } finally {
    database.close();
  }
}

async function readStreamed(
  file: string,
  format: LoadedTask['format'],
  reader: (file: string) => Promise<AgentSessionRead>,
): Promise<LoadedTask[]> {
  try {
    return toTasks(file, format, await reader(file));
  } catch (error) {
    if (error instanceof JsonLinesError) throw new InputError(file, error.message);
    if (error instanceof InputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code) throw new InputError(file, `cannot be read (${code})`);
    throw error;
  }
}

export async function loadSessionFile(file: string): Promise<LoadedTask[]> {
  let size: number;
  try {
    size = (await fs.stat(file)).size;
  } catch (error) {
    throw new InputError(
      file,
      `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unknown error'})`,
    );
  }
  if (size > 0 && (await readHead(file, SQLITE_HEADER.length)) === SQLITE_HEADER) {
    return readOpencodeDatabase(file);
  }
  const first = size > 0 ? await firstLineRecord(file) : undefined;
  if (first && !('projectHash' in first)) {
    // Before Claude Code's: qwen-code's records have its record types, with a Content inside.
    if (isQwenChatRecord(first)) return readStreamed(file, 'qwen-code', readQwenChat);
    if (isClaudeTranscriptRecord(first))
      return readStreamed(file, 'claude-code', readClaudeTranscript);
    if (isCodexRolloutRecord(first)) return readStreamed(file, 'codex', readCodexRollout);
    // A whole-file JSON object on one line: an export, a request body, a legacy recording.
    if (isOpencodeExport(first)) return toTasks(file, 'opencode', opencodeSessionToHistory(first));
    if (file.toLowerCase().endsWith('.jsonl') && !('sessionId' in first)) {
      throw new InputError(file, JSONL_EXPECTED, 'not-a-session');
    }
  }
  // Pretty-printed JSON, or one of the older formats: read whole (these are per-session files).
  if (!first && size > 0 && OPENCODE_EXPORT_OPENING.test(await readHead(file))) {
    const exported = await readOpencodeExport(file);
    if (exported) return toTasks(file, 'opencode', opencodeSessionToHistory(exported));
  }
  const task = await loadTaskFile(file);
  return [{ ...task, provider: LEGACY_PROVIDER[task.format] ?? 'gemini' }];
}

/** The file as an `opencode export`, or undefined (then the other readers say what is wrong). */
async function readOpencodeExport(file: string) {
  try {
    const value: unknown = JSON.parse(await fs.readFile(file, 'utf8'));
    return isOpencodeExport(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
