/**
 * What the dashboard names a session by, read from a request's body after the answer (off the
 * client's path; nothing here changes what is sent): the person's first prompt, the working folder
 * the client tells its model, and whether the request is OpenCode's title call.
 *
 * Only the start of a body is read, its first `SCAN_BYTES`: the conversation's first
 * `MAX_ELEMENTS` elements and the system prompt (`system`, `instructions`, `systemInstruction`)
 * found there, each parsed only under `MAX_PARSED_BYTES`; what starts past it is not seen (a
 * resumed conversation's first request may then name no folder). The system prompt is read from
 * the body without its conversation when the caller has it (`outside`: found however long the
 * conversation). What is kept is bounded (`MAX_PROMPT_CHARS`, `MAX_FOLDER_CHARS`).
 *
 * Only a conversation's first request keeps its prompt and folder (side-request.ts); of any
 * other (`named: false`) only the title call mark is read, and a value is parsed only when its
 * bytes hold `TITLE_WORDS`: the incremental pass's requests parse nothing here.
 *
 * - The prompt: the first text of a user message that is not the client's own context (Codex's
 *   `<environment_context>`, Claude Code's `<system-reminder>`: `CLIENT_TAGS`; gemini-cli's and
 *   qwen-code's "This is the … We are setting up the context" message, an `AGENTS.md` preamble).
 * - The folder: Codex's `<cwd>`, Claude Code's `Primary working directory:` (2.1.3xx, in a system
 *   message of its own among the messages; `Working directory:` before) and OpenCode's
 *   `Working directory:`, gemini-cli's
 *   and qwen-code's "I'm currently working in the directory:" (gemini-cli 0.61: its
 *   `<session_context>`'s first "Workspace Directories").
 * - OpenCode (1.18.33) names a session with a plain chat whose system prompt starts "You are a
 *   title generator": no tools, no schema, so only that text tells it from a main turn.
 */
import { isPlainObject } from '@toolmask/core/utils';
import { eventLoopPauser, type EventLoopPauser } from '@toolmask/core/utils';
import { findArray, scanElements, valueSpanAt } from '../body/json-layout.js';
import type { Protocol, ProtocolKind } from '../protocols/protocol.js';

export const MAX_PROMPT_CHARS = 200;
export const MAX_FOLDER_CHARS = 200;
const MAX_ELEMENTS = 8;
const MAX_PARSED_BYTES = 512 * 1024;
const SCAN_BYTES = 1024 * 1024;

export interface RequestFacts {
  prompt?: string;
  folder?: string;
  /** OpenCode's title call (a side request). */
  titleRequest?: true;
}

/** Where each protocol keeps its system prompt outside the conversation. */
const SYSTEM_PATHS: Record<ProtocolKind, readonly string[]> = {
  anthropic: ['system'],
  'openai-responses': ['instructions'],
  openai: ['system'], // chat completions keep it in `messages`: absent, a cheap miss
  'gemini-api': ['systemInstruction'],
  vertex: ['systemInstruction'],
  'code-assist': ['request', 'systemInstruction'],
};

const TEXT_TYPES = new Set(['text', 'input_text', 'output_text']);

/** The texts of a message, a content list or a part (tool calls and results have none here). */
export function textsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(textsOf);
  if (!isPlainObject(value)) return [];
  const type = value['type'];
  if (typeof value['text'] === 'string' && (type === undefined || TEXT_TYPES.has(type as string))) {
    return [value['text']];
  }
  if (type !== undefined && type !== 'message') return [];
  return [...textsOf(value['content']), ...textsOf(value['parts'])];
}

/** The clients' own context blocks (a prompt of the person's may start with a tag too). */
const CLIENT_TAGS =
  'environment_context|session_context|system-reminder|user_instructions|permissions instructions|collaboration_mode|command-name|command-message|local-command-stdout|local-command-caveat';

const CLIENT_CONTEXT = [
  new RegExp(`^\\s*<(?:${CLIENT_TAGS})[\\s>]`),
  /^\s*#\s*AGENTS\.md/i,
  /^This is the .{1,60}? We are setting up the context/s,
];

const FOLDER_PATTERNS = [
  /<cwd>([^<\n]+)<\/cwd>/,
  /^\s*(?:- )?(?:Primary )?[Ww]orking directory: *(\S[^\n]*)$/m,
  /I'm currently working in the directory: *(\S[^\n]*)$/m,
  /\*\*Workspace Directories:\*\*\n\s*- (\S[^\n]*)$/m,
];

export const TITLE_SYSTEM_PROMPT = /^\s*You are a title generator\b/m;
/**
 * Bytes any text `TITLE_SYSTEM_PROMPT` matches holds in its JSON: a client's serializer escapes no
 * letter or space (JSON.stringify, Go's and Rust's encoders do not).
 */
const TITLE_WORDS = Buffer.from('title generator');

function bounded(text: string, max: number, keep: 'head' | 'tail'): string {
  if (text.length <= max) return text;
  return keep === 'head' ? `${text.slice(0, max - 1)}…` : `…${text.slice(text.length - max + 1)}`;
}

/** A prompt without the one pair of quotes around it all (`opencode run` quotes its words). */
function unquoted(prompt: string): string {
  return /^"[^"]*"$/.test(prompt) ? prompt.slice(1, -1) : prompt;
}

/** The facts of a system prompt and the conversation's first elements, parsed. */
export function factsOf(system: unknown, elements: readonly unknown[]): RequestFacts {
  const systemTexts = textsOf(system);
  const facts: RequestFacts = {};
  const roleOf = (element: unknown) => (isPlainObject(element) ? element['role'] : undefined);
  for (const element of elements) {
    const role = roleOf(element);
    if (role === 'system' || role === 'developer') systemTexts.push(...textsOf(element));
  }
  if (systemTexts.some((text) => TITLE_SYSTEM_PROMPT.test(text))) facts.titleRequest = true;
  const userTexts = elements.filter((element) => roleOf(element) === 'user').flatMap(textsOf);
  const prompt = userTexts.find(
    (text) => text.trim() !== '' && !CLIENT_CONTEXT.some((context) => context.test(text)),
  );
  if (prompt)
    facts.prompt = bounded(unquoted(prompt.replace(/\s+/g, ' ').trim()), MAX_PROMPT_CHARS, 'head');
  for (const text of [...systemTexts, ...userTexts]) {
    const folder = FOLDER_PATTERNS.map((pattern) => pattern.exec(text)?.[1]?.trim()).find(
      (found) => found,
    );
    if (folder) {
      facts.folder = bounded(folder, MAX_FOLDER_CHARS, 'tail');
      break;
    }
  }
  return facts;
}

function parsed(raw: Buffer, [start, end]: [number, number]): unknown {
  if (end - start > MAX_PARSED_BYTES) return undefined;
  try {
    return JSON.parse(raw.toString('utf8', start, end));
  } catch {
    return undefined;
  }
}

/** The spans of the first elements from `position` (just after the `[`) that `head` holds whole. */
async function firstElements(
  head: Buffer,
  position: number,
  pause: EventLoopPauser,
): Promise<Array<[number, number]>> {
  const spans: Array<[number, number]> = [];
  let at = position;
  while (spans.length < MAX_ELEMENTS) {
    const scanned = await scanElements(head, at, pause, 1);
    const span = scanned?.elements[0];
    if (!scanned || !span) break;
    spans.push(span);
    if (scanned.close !== undefined) break;
    at = head.indexOf(',', span[1]) + 1; // past the comma after it
    if (at === 0) break;
  }
  return spans;
}

/** What a caller knows of the request beside its body. */
export interface FactsOptions {
  /**
   * Whether the prompt and folder are wanted (a conversation's first request); else only the
   * title call mark is read. @default true
   */
  named?: boolean;
  /** The body without its conversation (the array empty), where the system prompt is read. */
  outside?: Buffer | undefined;
}

/** The facts of a raw request body; never throws (empty when the body is not what was expected). */
export async function requestFacts(
  protocol: Protocol,
  raw: Buffer,
  options: FactsOptions = {},
): Promise<RequestFacts> {
  try {
    const named = options.named ?? true;
    const wanted = (bytes: Buffer) => named || bytes.includes(TITLE_WORDS);
    const pause = eventLoopPauser();
    // A value cut by the end of `head` is not found (its walk fails): never a partial one.
    const headOf = (body: Buffer) =>
      body.length > SCAN_BYTES ? body.subarray(0, SCAN_BYTES) : body;
    const head = headOf(raw);
    const at = await findArray(head, protocol.codec.arrayPath, pause);
    const spans = at >= 0 ? await firstElements(head, at + 1, pause) : [];
    const elements = spans
      .filter(([start, end]) => wanted(head.subarray(start, end)))
      .map((span) => parsed(head, span));
    const outside = options.outside ? headOf(options.outside) : head;
    const systemSpan = await valueSpanAt(outside, SYSTEM_PATHS[protocol.kind], pause);
    const system =
      systemSpan && wanted(outside.subarray(...systemSpan))
        ? parsed(outside, systemSpan)
        : undefined;
    const facts = factsOf(system, elements);
    return named ? facts : facts.titleRequest ? { titleRequest: true } : {};
  } catch {
    return {};
  }
}
