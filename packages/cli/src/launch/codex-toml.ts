/**
 * A TOML reader for what `toolmask codex` needs of codex's `config.toml` files: which model
 * provider is chosen and where it sends requests. It reads TOML 1.0 as data (tables, arrays of
 * tables, dotted and quoted keys, inline tables, arrays, the four kinds of string, numbers,
 * booleans; dates and times are kept as their text) and never writes: the person's files are
 * only read. A document it cannot read raises a `TomlError` with the line, which the launcher
 * reports (codex itself would refuse the same file).
 */

export type TomlTable = { [key: string]: TomlValue };
export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;

export class TomlError extends Error {}

const BARE_KEY = /[A-Za-z0-9_-]/;
const DATE_TIME =
  /^(\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?([Zz]|[+-]\d{2}:\d{2})?|\d{2}:\d{2}(:\d{2}(\.\d+)?)?)/;
const ESCAPES: Record<string, string> = {
  b: '\b',
  t: '\t',
  n: '\n',
  f: '\f',
  r: '\r',
  e: '\x1b',
  '"': '"',
  '\\': '\\',
};

function isTable(value: TomlValue | undefined): value is TomlTable {
  return typeof value === 'object' && !Array.isArray(value);
}

class Reader {
  private position = 0;
  private readonly root: TomlTable = {};

  constructor(private readonly text: string) {}

  private fail(message: string): never {
    const line = this.text.slice(0, this.position).split('\n').length;
    throw new TomlError(`line ${line}: ${message}`);
  }

  private peek(offset = 0): string {
    return this.text[this.position + offset] ?? '';
  }

  private startsWith(token: string): boolean {
    return this.text.startsWith(token, this.position);
  }

  /** Spaces and tabs; with `newlines`, also line ends and comments (inside arrays). */
  private skipBlank(newlines = false): void {
    for (;;) {
      const char = this.peek();
      if (char === ' ' || char === '\t') this.position++;
      else if (newlines && (char === '\n' || char === '\r')) this.position++;
      else if (newlines && char === '#') this.skipComment();
      else return;
    }
  }

  private skipComment(): void {
    while (this.position < this.text.length && this.peek() !== '\n') this.position++;
  }

  /** The rest of a line after a statement: a comment at most. */
  private endOfLine(): void {
    this.skipBlank();
    if (this.peek() === '#') this.skipComment();
    if (this.peek() === '\r') this.position++;
    if (this.position < this.text.length && this.peek() !== '\n') {
      this.fail(`unexpected ${JSON.stringify(this.peek())}`);
    }
    this.position++;
  }

  read(): TomlTable {
    if (this.peek() === '\ufeff') this.position++;
    let current = this.root;
    while (this.position < this.text.length) {
      this.skipBlank();
      const char = this.peek();
      if (char === '\n' || char === '\r' || char === '#' || char === '') {
        this.endOfLine();
        continue;
      }
      if (char === '[') {
        const arrayOfTables = this.startsWith('[[');
        this.position += arrayOfTables ? 2 : 1;
        const keys = this.key();
        if (!this.startsWith(arrayOfTables ? ']]' : ']')) this.fail('unclosed table header');
        this.position += arrayOfTables ? 2 : 1;
        current = arrayOfTables ? this.appendTable(keys) : this.table(this.root, keys);
        this.endOfLine();
        continue;
      }
      this.keyValue(current);
      this.endOfLine();
    }
    return this.root;
  }

  /** The table at `keys` under `base`, made where missing (the last of an array of tables). */
  private table(base: TomlTable, keys: string[]): TomlTable {
    let table = base;
    for (const key of keys) {
      const next = table[key];
      if (next === undefined) table = table[key] = {};
      else if (isTable(next)) table = next;
      else if (Array.isArray(next) && isTable(next.at(-1))) table = next.at(-1) as TomlTable;
      else this.fail(`${keys.join('.')} is not a table`);
    }
    return table;
  }

  private appendTable(keys: string[]): TomlTable {
    const parent = this.table(this.root, keys.slice(0, -1));
    const last = keys.at(-1)!;
    const list = (parent[last] ??= []);
    if (!Array.isArray(list)) this.fail(`${keys.join('.')} is not an array of tables`);
    const table: TomlTable = {};
    list.push(table);
    return table;
  }

  private keyValue(target: TomlTable): void {
    const keys = this.key();
    if (this.peek() !== '=') this.fail('expected "=" after a key');
    this.position++;
    this.skipBlank();
    const table = this.table(target, keys.slice(0, -1));
    const last = keys.at(-1)!;
    if (last in table) this.fail(`${keys.join('.')} is defined twice`);
    table[last] = this.value();
  }

  /** A dotted key: its parts. */
  private key(): string[] {
    const parts: string[] = [];
    for (;;) {
      this.skipBlank();
      const char = this.peek();
      if (char === '"') parts.push(this.basicString());
      else if (char === "'") parts.push(this.literalString());
      else {
        const start = this.position;
        while (BARE_KEY.test(this.peek())) this.position++;
        if (start === this.position) this.fail('expected a key');
        parts.push(this.text.slice(start, this.position));
      }
      this.skipBlank();
      if (this.peek() !== '.') return parts;
      this.position++;
    }
  }

  private value(): TomlValue {
    const char = this.peek();
    if (this.startsWith('"""')) return this.multilineBasicString();
    if (this.startsWith("'''")) return this.multilineLiteralString();
    if (char === '"') return this.basicString();
    if (char === "'") return this.literalString();
    if (char === '[') return this.array();
    if (char === '{') return this.inlineTable();
    if (this.startsWith('true')) return ((this.position += 4), true);
    if (this.startsWith('false')) return ((this.position += 5), false);
    const rest = this.text.slice(this.position);
    const date = DATE_TIME.exec(rest);
    if (date && /^(\d{4}-|\d{2}:)/.test(rest)) {
      this.position += date[0].length;
      return date[0];
    }
    const number =
      /^[+-]?(0x[0-9A-Fa-f_]+|0o[0-7_]+|0b[01_]+|inf|nan|[0-9_]+(\.[0-9_]+)?([eE][+-]?[0-9_]+)?)/.exec(
        rest,
      );
    if (!number) this.fail('expected a value');
    this.position += number[0].length;
    const digits = number[0].replace(/_/g, '');
    const sign = digits.startsWith('-') ? -1 : 1;
    const unsigned = digits.replace(/^[+-]/, '');
    if (unsigned === 'inf') return sign * Infinity;
    if (unsigned === 'nan') return NaN;
    if (/^0[xob]/.test(unsigned)) return sign * Number(unsigned);
    return Number(digits);
  }

  private basicString(): string {
    this.position++;
    let result = '';
    for (;;) {
      const char = this.peek();
      if (char === '' || char === '\n') this.fail('unterminated string');
      this.position++;
      if (char === '"') return result;
      result += char === '\\' ? this.escape() : char;
    }
  }

  private escape(): string {
    const char = this.peek();
    this.position++;
    if (char in ESCAPES) return ESCAPES[char]!;
    const length = char === 'u' ? 4 : char === 'U' ? 8 : char === 'x' ? 2 : 0;
    const hex = this.text.slice(this.position, this.position + length);
    if (length === 0 || !/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== length) {
      this.fail(`bad escape \\${char}`);
    }
    this.position += length;
    return String.fromCodePoint(parseInt(hex, 16));
  }

  private multilineBasicString(): string {
    this.position += 3;
    if (this.peek() === '\r') this.position++;
    if (this.peek() === '\n') this.position++;
    let result = '';
    for (;;) {
      if (this.position >= this.text.length) this.fail('unterminated string');
      if (this.startsWith('"""') && !this.startsWith('""""')) {
        this.position += 3;
        return result;
      }
      const char = this.peek();
      this.position++;
      if (char !== '\\') {
        result += char;
      } else if (/^[ \t]*\r?\n/.test(this.text.slice(this.position))) {
        // A line-ending backslash: the line end and the blanks that follow go.
        while (/[ \t\r\n]/.test(this.peek())) this.position++;
      } else {
        result += this.escape();
      }
    }
  }

  private literalString(): string {
    const end = this.text.indexOf("'", this.position + 1);
    const newline = this.text.indexOf('\n', this.position + 1);
    if (end < 0 || (newline >= 0 && newline < end)) this.fail('unterminated string');
    const result = this.text.slice(this.position + 1, end);
    this.position = end + 1;
    return result;
  }

  private multilineLiteralString(): string {
    this.position += 3;
    if (this.peek() === '\r') this.position++;
    if (this.peek() === '\n') this.position++;
    let end = this.text.indexOf("'''", this.position);
    if (end < 0) this.fail('unterminated string');
    while (this.text[end + 3] === "'") end++;
    const result = this.text.slice(this.position, end);
    this.position = end + 3;
    return result;
  }

  private array(): TomlValue[] {
    this.position++;
    const items: TomlValue[] = [];
    for (;;) {
      this.skipBlank(true);
      if (this.peek() === ']') return (this.position++, items);
      items.push(this.value());
      this.skipBlank(true);
      if (this.peek() === ',') this.position++;
      else if (this.peek() !== ']') this.fail('expected "," or "]" in an array');
    }
  }

  private inlineTable(): TomlTable {
    this.position++;
    const table: TomlTable = {};
    this.skipBlank();
    if (this.peek() === '}') return (this.position++, table);
    for (;;) {
      this.keyValue(table);
      this.skipBlank();
      if (this.peek() === '}') return (this.position++, table);
      if (this.peek() !== ',') this.fail('expected "," or "}" in an inline table');
      this.position++;
    }
  }

  /** One value on its own (a `-c key=value` override's value). */
  readValue(): TomlValue {
    this.skipBlank();
    const value = this.value();
    this.skipBlank();
    if (this.position !== this.text.length) this.fail('unexpected text after the value');
    return value;
  }
}

/** The document as data. Throws a `TomlError` for what is not TOML. */
export function parseToml(text: string): TomlTable {
  return new Reader(text).read();
}

/**
 * A `-c key=value` override's value as codex reads it: TOML when it parses as a TOML value, the
 * raw text otherwise (`-c model=o3` is the string "o3").
 */
export function parseOverrideValue(text: string): TomlValue {
  try {
    return new Reader(text).readValue();
  } catch {
    return text.trim();
  }
}

/** A string as a TOML value (a basic string: JSON's escapes are TOML's). */
export function tomlString(value: string): string {
  return JSON.stringify(value);
}

export function tableAt(table: TomlTable, keys: readonly string[]): TomlTable | undefined {
  let current: TomlValue | undefined = table;
  for (const key of keys) current = isTable(current) ? current[key] : undefined;
  return isTable(current) ? current : undefined;
}

/** `over` merged into `base`, tables key by key, anything else replaced (codex's layering). */
export function mergeTables(base: TomlTable, over: TomlTable): TomlTable {
  const result: TomlTable = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const existing = result[key];
    result[key] = isTable(existing) && isTable(value) ? mergeTables(existing, value) : value;
  }
  return result;
}

/** `value` set at a dotted path of `table` (a `-c` override), tables made where missing. */
export function setAtPath(table: TomlTable, keys: readonly string[], value: TomlValue): TomlTable {
  if (keys.length === 0) return table;
  const [first, ...rest] = keys as [string, ...string[]];
  const existing = table[first];
  return {
    ...table,
    [first]: rest.length === 0 ? value : setAtPath(isTable(existing) ? existing : {}, rest, value),
  };
}
