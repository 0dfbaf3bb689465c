/**
 * Reading and editing a person's settings.json (gemini-cli's, qwen-code's) without losing their
 * comments or formatting: values are read with a JSONC parser and written back as minimal edits
 * of the original text (jsonc-parser, the parser VS Code uses; linear time).
 */
import {
  applyEdits,
  createScanner,
  findNodeAtLocation,
  modify,
  parse,
  parseTree,
  printParseErrorCode,
  SyntaxKind,
  type ParseError,
} from 'jsonc-parser';
import { LaunchError } from './launch-error.js';

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

function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}

/** The settings object of a file's text (`{}` for an empty file). Throws on a syntax error. */
export function parseSettings(text: string, file: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, {
    allowTrailingComma: false,
    disallowComments: false,
  });
  if (errors.length > 0) {
    const first = errors[0] as ParseError;
    throw new SettingsTextError(
      file,
      `not valid JSON: ${printParseErrorCode(first.error)} at ${lineColumn(text, first.offset)}`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new SettingsTextError(file, 'a settings file must hold a JSON object');
  }
  return value as Record<string, unknown>;
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
  if (value === undefined) {
    const removed = removeFirstProperty(text, path);
    if (removed !== undefined) return removed;
  }
  const base = text.trim() === '' ? '{}\n' : text;
  const edits = modify(base, path, value, {
    formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' },
    // A new key goes first: appending would reformat the sibling before it and move its comment.
    getInsertionIndex: () => 0,
  });
  return applyEdits(base, edits);
}
