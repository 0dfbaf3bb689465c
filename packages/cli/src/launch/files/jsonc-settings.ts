/**
 * Reading and editing a person's settings.json (gemini-cli's, qwen-code's) without losing their
 * comments or formatting. Files are read and their values parsed as core reads every settings file
 * (`@toolmask/core/settings`: only a regular file of at most 1 MB, a leading BOM ignored, comments
 * allowed, the value exactly what gemini-cli's JSON.parse makes of it); edits are minimal changes
 * of the original text (jsonc-parser, the parser VS Code uses; linear time).
 */
import { parseSettingsText, readSettingsText, SettingsReadError } from '@toolmask/core/settings';
import { createRequire } from 'node:module';
import type * as JsoncParser from 'jsonc-parser';
import { LaunchError } from '../launch-error.js';

let jsoncParser: typeof JsoncParser | undefined;

/**
 * jsonc-parser, loaded on the first edit: a launcher imports this module before its client starts
 * and edits no file there (issue 30: the parser is ~10 ms of CPU to load).
 */
function jsonc(): typeof JsoncParser {
  return (jsoncParser ??= createRequire(import.meta.url)('jsonc-parser') as typeof JsoncParser);
}

export type JsonPath = Array<string | number>;

export class SettingsTextError extends LaunchError {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = 'SettingsTextError';
  }
}

/** The settings object of a file's text (`{}` for an empty file). Throws on a syntax error. */
export function parseSettings(text: string, file: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseSettingsText(text);
  } catch (error) {
    throw new SettingsTextError(file, `not valid JSON: ${(error as Error).message}`);
  }
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new SettingsTextError(file, 'a settings file must hold a JSON object');
  }
  return value as Record<string, unknown>;
}

/**
 * A settings file's text, or undefined when there is none. A FIFO, a device or a file over 1 MB
 * is refused with a clear error instead of blocking or filling memory.
 */
export async function readSettingsFile(file: string): Promise<string | undefined> {
  try {
    return await readSettingsText(file);
  } catch (error) {
    if (error instanceof SettingsReadError && error.code === 'ENOENT') return undefined;
    throw new SettingsTextError(file, (error as Error).message);
  }
}

/** A settings file's object: `{}` when there is none (readSettingsFile, parseSettings). */
export async function readSettingsObject(file: string): Promise<Record<string, unknown>> {
  return parseSettings((await readSettingsFile(file)) ?? '', file);
}

/** The value at `path`, or undefined. */
export function valueAt(settings: unknown, path: JsonPath): unknown {
  let value = settings;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

/**
 * jsonc-parser removes the first property of an object up to the start of the next one, and with
 * it any comment above that next one. Setup inserts its keys first, so its --undo would take the
 * person's comment: such a property is removed up to its comma instead (with its line, when it
 * has one of its own). Undefined when that does not apply.
 */
function removeFirstProperty(text: string, path: JsonPath): string | undefined {
  const { createScanner, findNodeAtLocation, parseTree, SyntaxKind } = jsonc();
  const root = parseTree(text);
  const property = root ? findNodeAtLocation(root, path)?.parent : undefined;
  const object = property?.parent;
  if (property?.type !== 'property' || object?.children?.[0] !== property) return undefined;
  if (object.children.length < 2) return undefined;
  const scanner = createScanner(text, true);
  scanner.setPosition(property.offset + property.length);
  let token = scanner.scan();
  while (token === SyntaxKind.LineCommentTrivia || token === SyntaxKind.BlockCommentTrivia) {
    token = scanner.scan();
  }
  if (token !== SyntaxKind.CommaToken) return undefined;
  let start = property.offset;
  let end = scanner.getTokenOffset() + scanner.getTokenLength();
  const rest = /^[ \t]*(\r?\n)?/.exec(text.slice(end))?.[0] ?? '';
  end += rest.length;
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  if (rest.endsWith('\n') && text.slice(lineStart, start).trim() === '') start = lineStart;
  return text.slice(0, start) + text.slice(end);
}

/** `text` with `path` set to `value` (undefined removes it), comments and layout kept. */
export function setInText(text: string, path: JsonPath, value: unknown): string {
  // A leading byte order mark is no part of the JSON (gemini-cli ignores it): kept, and edited around.
  if (text.startsWith('\uFEFF')) return '\uFEFF' + setInText(text.slice(1), path, value);
  if (value === undefined) {
    const removed = removeFirstProperty(text, path);
    if (removed !== undefined) return removed;
  }
  const { applyEdits, modify } = jsonc();
  const base = text.trim() === '' ? '{}\n' : text;
  const edits = modify(base, path, value, {
    formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' },
    // A new key goes first: appending would reformat the sibling before it and move its comment.
    getInsertionIndex: () => 0,
  });
  return applyEdits(base, edits);
}
