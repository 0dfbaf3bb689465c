/**
 * Reading and editing a person's settings.json (gemini-cli's, qwen-code's) without losing their
 * comments or formatting: values are read with a JSONC parser and written back as minimal edits
 * of the original text (jsonc-parser, the parser VS Code uses; linear time).
 */
import { applyEdits, modify, parse, printParseErrorCode, type ParseError } from 'jsonc-parser';

export type JsonPath = Array<string | number>;

export class SettingsTextError extends Error {
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

/** `text` with `path` set to `value` (undefined removes it), comments and layout kept. */
export function setInText(text: string, path: JsonPath, value: unknown): string {
  const base = text.trim() === '' ? '{}\n' : text;
  const edits = modify(base, path, value, {
    formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' },
    // A new key goes first: appending would reformat the sibling before it and move its comment.
    getInsertionIndex: () => 0,
  });
  return applyEdits(base, edits);
}
