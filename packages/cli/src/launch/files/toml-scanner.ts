/**
 * Just enough of TOML (1.0) for `toolmask setup codex` to edit `~/.codex/config.toml` without
 * rewriting it: the file is scanned into its statements (table headers and `key = value` pairs,
 * with their offsets), which toml-text.ts edits as text.
 *
 * The scanner reads strings (basic, literal, and their multi-line forms, escapes included),
 * comments, arrays and inline tables spanning lines, and quoted or dotted keys, so that a `[` or a
 * `=` inside a value is never taken for a header or a key. It does not check types or duplicate
 * keys: toml-text.ts's `tomlProblem` does, with smol-toml, on the text before and after setup's
 * change; a text the scanner cannot follow throws `TomlScanError`. Values are kept as raw text:
 * setup compares and restores them, it never needs their meaning, except for a plain string
 * (`stringValue`).
 */
import { ToolmaskError } from '@toolmask/core/errors';

/** A TOML text the scanner cannot follow, with its line. Code `UNREADABLE_TOML`. */
export class TomlScanError extends ToolmaskError<'UNREADABLE_TOML'> {
  constructor(message: string) {
    super('UNREADABLE_TOML', message);
  }
}

/** A table header: `[a.b]` or `[[a.b]]`. */
export interface TomlHeader {
  kind: 'table' | 'array-table';
  path: string[];
  /** Offsets of the header line, from its first character to after its line break. */
  lineStart: number;
  lineEnd: number;
}

/** A `key = value` pair, in the table of the header above it (`[]` at the top). */
export interface TomlPair {
  kind: 'pair';
  table: string[];
  key: string[];
  /** The value's raw text (offsets into the file). */
  valueStart: number;
  valueEnd: number;
  lineStart: number;
  /** After the pair's line break (or the end of the file). */
  lineEnd: number;
}

export type TomlStatement = TomlHeader | TomlPair;

const BARE_KEY = /[A-Za-z0-9_-]/;

class Scanner {
  position = 0;
  constructor(readonly text: string) {}

  fail(what: string): never {
    const line = this.text.slice(0, this.position).split('\n').length;
    throw new TomlScanError(`line ${line}: ${what}`);
  }

  peek(offset = 0): string {
    return this.text[this.position + offset] ?? '';
  }

  startsWith(token: string): boolean {
    return this.text.startsWith(token, this.position);
  }

  /** Spaces and tabs. */
  skipBlanks(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.position++;
  }

  /** Blanks, line breaks and comments (inside arrays). */
  skipBlanksAndLines(): void {
    for (;;) {
      this.skipBlanks();
      const next = this.peek();
      if (next === '\n' || next === '\r') this.position++;
      else if (next === '#') this.skipComment();
      else return;
    }
  }

  skipComment(): void {
    while (this.position < this.text.length && this.peek() !== '\n') this.position++;
  }

  /** After blanks and an optional comment, the end of the line (or of the file). */
  endLine(): number {
    this.skipBlanks();
    if (this.peek() === '#') this.skipComment();
    if (this.peek() === '\r' && this.peek(1) === '\n') this.position++;
    if (this.position < this.text.length && this.peek() !== '\n')
      this.fail('expected the end of the line');
    if (this.position < this.text.length) this.position++;
    return this.position;
  }

  /** A string at the position; its value. */
  string(): string {
    for (const quote of ['"""', "'''"]) {
      if (!this.startsWith(quote)) continue;
      this.position += 3;
      const start = this.position;
      // Up to five quotes may close it (one or two of them belong to the content).
      const end = this.text.indexOf(quote, this.position);
      if (end < 0) this.fail('unterminated multi-line string');
      let close = end;
      while (this.text[close + 3] === quote[0] && close - end < 2) close++;
      this.position = close + 3;
      const raw = this.text.slice(start, close);
      return quote === "'''" ? raw : unescape(raw.replace(/\\[ \t]*\r?\n[\s]*/g, ''));
    }
    const quote = this.peek();
    this.position++;
    const start = this.position;
    while (this.position < this.text.length) {
      const char = this.peek();
      if (char === '\n') break;
      if (quote === '"' && char === '\\') {
        this.position += 2;
        continue;
      }
      if (char === quote) {
        const raw = this.text.slice(start, this.position);
        this.position++;
        return quote === "'" ? raw : unescape(raw);
      }
      this.position++;
    }
    return this.fail('unterminated string');
  }

  /** A key, dotted or not. */
  key(): string[] {
    const parts: string[] = [];
    for (;;) {
      this.skipBlanks();
      const char = this.peek();
      if (char === '"' || char === "'") {
        parts.push(this.string());
      } else {
        const start = this.position;
        while (BARE_KEY.test(this.peek())) this.position++;
        if (this.position === start) this.fail('expected a key');
        parts.push(this.text.slice(start, this.position));
      }
      this.skipBlanks();
      if (this.peek() !== '.') return parts;
      this.position++;
    }
  }

  /** Past a value of any kind (a string, an array, an inline table, or a bare word). */
  value(): void {
    const char = this.peek();
    if (char === '"' || char === "'") {
      this.string();
    } else if (char === '[') {
      this.position++;
      for (;;) {
        this.skipBlanksAndLines();
        if (this.peek() === ']') break;
        this.value();
        this.skipBlanksAndLines();
        if (this.peek() === ',') this.position++;
        else if (this.peek() !== ']') this.fail('expected , or ] in an array');
      }
      this.position++;
    } else if (char === '{') {
      this.position++;
      for (;;) {
        this.skipBlanksAndLines();
        if (this.peek() === '}') break;
        this.key();
        if (this.peek() !== '=') this.fail('expected = in an inline table');
        this.position++;
        this.skipBlanks();
        this.value();
        this.skipBlanksAndLines();
        if (this.peek() === ',') this.position++;
        else if (this.peek() !== '}') this.fail('expected , or } in an inline table');
      }
      this.position++;
    } else {
      // Numbers, booleans, dates and times: up to a delimiter.
      const start = this.position;
      while (this.position < this.text.length && !/[,\]}#\r\n]/.test(this.peek())) this.position++;
      while (this.position > start && /[ \t]/.test(this.text[this.position - 1]!)) this.position--;
      if (this.position === start) this.fail('expected a value');
    }
  }
}

const ESCAPES: Record<string, string> = {
  b: '\b',
  t: '\t',
  n: '\n',
  f: '\f',
  r: '\r',
  '"': '"',
  '\\': '\\',
};

function unescape(raw: string): string {
  return raw.replace(/\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)/g, (_, code: string) =>
    code.length > 1 ? String.fromCodePoint(parseInt(code.slice(1), 16)) : (ESCAPES[code] ?? code),
  );
}

/** The statements of a TOML text, in order. Throws `TomlScanError` on a text it cannot follow. */
export function scanToml(text: string): TomlStatement[] {
  const scanner = new Scanner(text);
  const statements: TomlStatement[] = [];
  let table: string[] = [];
  if (text.startsWith('\uFEFF')) scanner.position = 1;
  while (scanner.position < text.length) {
    const lineStart = scanner.position;
    scanner.skipBlanks();
    const char = scanner.peek();
    if (char === '\n' || char === '\r' || char === '#' || char === '') {
      scanner.endLine();
      continue;
    }
    if (char === '[') {
      const array = scanner.peek(1) === '[';
      scanner.position += array ? 2 : 1;
      const keyPath = scanner.key();
      if (!scanner.startsWith(array ? ']]' : ']')) scanner.fail('expected ] after a table name');
      scanner.position += array ? 2 : 1;
      table = keyPath;
      statements.push({
        kind: array ? 'array-table' : 'table',
        path: keyPath,
        lineStart,
        lineEnd: scanner.endLine(),
      });
      continue;
    }
    const key = scanner.key();
    if (scanner.peek() !== '=') scanner.fail('expected = after a key');
    scanner.position++;
    scanner.skipBlanks();
    const valueStart = scanner.position;
    scanner.value();
    const valueEnd = scanner.position;
    statements.push({
      kind: 'pair',
      table,
      key,
      valueStart,
      valueEnd,
      lineStart,
      lineEnd: scanner.endLine(),
    });
  }
  return statements;
}

/** The value of a raw TOML value when it is a plain string (basic or literal, one line). */
export function stringValue(raw: string): string | undefined {
  if (!/^("|')/.test(raw) || raw.startsWith('"""') || raw.startsWith("'''")) return undefined;
  const scanner = new Scanner(raw);
  try {
    const value = scanner.string();
    return scanner.position === raw.length ? value : undefined;
  } catch {
    return undefined;
  }
}
