/**
 * Builds the replay's neutral history (`Content[]` in gemini's shape) from an agent's records as
 * they stream by, for the Claude Code, Codex and OpenCode readers:
 * - consecutive model output (text blocks, tool calls) becomes one model content, as one answer;
 * - consecutive tool results become one user content of `functionResponse` parts, each named by
 *   the call of the same id (`unknown` when no call announced it, counted for a warning);
 * - usage the agent recorded for an answer sits beside the model content it produced, at the
 *   same index (the engine reads it from there);
 * - `restart()` begins a new history (the agent compacted its context: what follows was sent
 *   without what came before), so one file may give several histories.
 */
import { isPlainObject } from '@toolmask/core/utils';
import type { Content, Part, RecordedUsage } from '../replay/types.js';

export interface BuiltHistory {
  contents: Content[];
  recordedUsage: (RecordedUsage | undefined)[];
}

export class HistoryBuilder {
  readonly histories: BuiltHistory[] = [];
  private current: BuiltHistory = { contents: [], recordedUsage: [] };
  private readonly toolNames = new Map<string, string>();
  /** The content being extended, and what it is. */
  private open: { kind: 'model' | 'results' | 'user'; parts: Part[] } | undefined;
  unknownCallIds = 0;

  /** A user (or system) message: text and images, its own content. */
  user(parts: Part[]): void {
    if (parts.length === 0) return;
    this.push('user', parts);
  }

  /** Model output: appended to the model content being built, or a new one. */
  model(parts: Part[], options: { newAnswer?: boolean } = {}): void {
    if (parts.length === 0) return;
    for (const part of parts) {
      if (part.functionCall?.id && part.functionCall.name) {
        this.toolNames.set(part.functionCall.id, part.functionCall.name);
      }
    }
    if (this.open?.kind === 'model' && !options.newAnswer) this.open.parts.push(...parts);
    else this.push('model', parts);
  }

  /** One tool result; `extra` (images a result carried) goes right after it. */
  toolResult(id: string, output: string, extra: Part[] = [], name?: string): void {
    let toolName = name ?? this.toolNames.get(id);
    if (toolName === undefined) {
      this.unknownCallIds++;
      toolName = 'unknown';
    }
    const parts: Part[] = [{ functionResponse: { id, name: toolName, response: { output } } }];
    parts.push(...extra);
    if (this.open?.kind === 'results') this.open.parts.push(...parts);
    else this.push('results', parts);
  }

  /** Usage of the latest answer (replaces what an earlier record said of the same answer). */
  usage(usage: RecordedUsage): void {
    const { contents, recordedUsage } = this.current;
    for (let index = contents.length - 1; index >= 0; index--) {
      if (contents[index]?.role === 'model') {
        recordedUsage[index] = usage;
        return;
      }
    }
  }

  /** Whether the latest model content already has usage. */
  latestAnswerHasUsage(): boolean {
    const { contents, recordedUsage } = this.current;
    for (let index = contents.length - 1; index >= 0; index--) {
      if (contents[index]?.role === 'model') return recordedUsage[index] !== undefined;
    }
    return true;
  }

  /** Ends the current answer, so the next model output starts a new content. */
  closeAnswer(): void {
    if (this.open?.kind === 'model') this.open = undefined;
  }

  restart(): void {
    if (this.current.contents.length > 0) this.histories.push(this.current);
    this.current = { contents: [], recordedUsage: [] };
    this.open = undefined;
  }

  /**
   * The histories, each led by `systemPrompt` when the file recorded one (it goes out with every
   * request, compacted or not, so it counts toward each).
   */
  finish(systemPrompt?: string): BuiltHistory[] {
    this.restart();
    if (systemPrompt) {
      for (const history of this.histories) {
        history.contents.unshift({ role: 'user', parts: [{ text: systemPrompt }] });
        history.recordedUsage.unshift(undefined);
      }
    }
    return this.histories;
  }

  private push(kind: 'model' | 'results' | 'user', parts: Part[]): void {
    this.open = { kind, parts };
    this.current.contents.push({ role: kind === 'model' ? 'model' : 'user', parts });
    this.current.recordedUsage.push(undefined);
  }
}

/** A non-negative finite number, else undefined. */
export function countOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** An image as a gemini part, from base64 data and its media type. */
export function imagePart(mimeType: unknown, data: unknown): Part | undefined {
  if (typeof data !== 'string' || data === '') return undefined;
  return { inlineData: { mimeType: typeof mimeType === 'string' ? mimeType : 'image/png', data } };
}

/** Milliseconds since the epoch of an ISO time, or undefined. */
export function timeOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string') return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : time;
}

/**
 * A tool call's arguments as the model sent them: an object as it is; a JSON text of an object
 * parsed (OpenAI's `arguments`); anything else kept as `{ arguments: <text> }`, nothing lost.
 */
export function parseArguments(raw: unknown): Record<string, unknown> {
  if (isPlainObject(raw)) return raw;
  if (typeof raw !== 'string' || raw === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return isPlainObject(parsed) ? parsed : { arguments: raw };
  } catch {
    return { arguments: raw };
  }
}
