/**
 * A shell command as words, bounded: enough of POSIX shell syntax to tell which files a command
 * reads and writes (callFacts.ts), never to run it.
 *
 * The script is split into pipelines (`&&`, `||`, `;`, `&`, new lines) of simple commands (`|`),
 * each a list of words and redirections; quotes and escapes are undone; heredoc bodies are taken
 * out of the command stream and kept on their redirection. A word holding an expansion (`$x`,
 * `$(…)`, backquotes), a glob or a leading `~` is marked `dynamic`: its text is not the path the
 * shell would use. Subshells, braces and control flow (`if`, `for`, `while`, `case`, functions)
 * mark the whole script `complex`: its commands may not all run, so nothing is read from it.
 *
 * Model-chosen input runs in bounded time: a script longer than `MAX_SHELL_SCRIPT_CHARS` is not
 * parsed at all, and the parser is one forward scan without regular expressions (each character
 * is looked at a bounded number of times, heredoc bodies and `$(…)` included).
 */

/** Longest script parsed; a longer one is left alone (only its exact text can match a rerun). */
export const MAX_SHELL_SCRIPT_CHARS = 8_192;

export interface ShellWord {
  /** The word with quotes and escapes undone. */
  text: string;
  /** Holds an expansion, a glob or a leading `~`: `text` is not what the shell would use. */
  dynamic: boolean;
}

export interface ShellRedirect {
  /** `>`, `>>`, `>|`, `&>`, `&>>`, `>&`, `<`, `<&`, `<>`, `<<`, `<<-` or `<<<`. */
  op: string;
  /** The file descriptor written before the operator (`2>`), when one was. */
  fd?: number;
  target: ShellWord;
  /** A heredoc's body (`<<`, `<<-`), without its closing delimiter line. */
  body?: string;
}

export interface SimpleCommand {
  words: ShellWord[];
  redirects: ShellRedirect[];
}

export interface ShellScript {
  /** Pipelines in order; each holds the commands joined by `|`. */
  pipelines: SimpleCommand[][];
  /** Subshells, braces or control flow were seen (see the module comment). */
  complex: boolean;
}

/** Words that open or close shell control flow when they start a command. */
const RESERVED = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'for',
  'while',
  'until',
  'do',
  'done',
  'case',
  'esac',
  'select',
  'function',
  '{',
  '}',
  '[[',
]);

const isBlank = (c: string | undefined) => c === ' ' || c === '\t' || c === '\r';
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
/** Characters that end an unquoted word. */
const isOperator = (c: string | undefined) =>
  c === '\n' ||
  c === ';' ||
  c === '&' ||
  c === '|' ||
  c === '(' ||
  c === ')' ||
  c === '<' ||
  c === '>';

interface PendingHeredoc {
  redirect: ShellRedirect;
  delimiter: string;
  stripTabs: boolean;
}

class Parser {
  private at = 0;
  private complex = false;
  private readonly pipelines: SimpleCommand[][] = [];
  private commands: SimpleCommand[] = [];
  private current: SimpleCommand = { words: [], redirects: [] };
  private heredocs: PendingHeredoc[] = [];

  constructor(private readonly text: string) {}

  parse(): ShellScript {
    const text = this.text;
    while (this.at < text.length) {
      const c = text[this.at];
      if (isBlank(c)) {
        this.at++;
      } else if (c === '\\' && text[this.at + 1] === '\n') {
        this.at += 2;
      } else if (c === '\n') {
        this.at++;
        this.readHeredocBodies();
        this.endPipeline();
      } else if (c === '#') {
        const end = text.indexOf('\n', this.at);
        this.at = end < 0 ? text.length : end;
      } else if (c === ';') {
        this.at += text[this.at + 1] === ';' ? 2 : 1;
        this.endPipeline();
      } else if (c === '&' && text[this.at + 1] === '>') {
        this.readRedirect(undefined);
      } else if (c === '&') {
        this.at += text[this.at + 1] === '&' ? 2 : 1;
        this.endPipeline();
      } else if (c === '|') {
        if (text[this.at + 1] === '|') {
          this.at += 2;
          this.endPipeline();
        } else {
          this.at += text[this.at + 1] === '&' ? 2 : 1;
          this.endCommand();
        }
      } else if (c === '(' || c === ')') {
        this.complex = true;
        this.at++;
        this.endPipeline();
      } else if (c === '<' || c === '>') {
        this.readRedirect(undefined);
      } else if (isDigit(c) && this.fdBeforeRedirect()) {
        // `2>file`, `2>&1`: the digits name a file descriptor.
        let end = this.at;
        while (isDigit(text[end])) end++;
        const fd = Number(text.slice(this.at, end));
        this.at = end;
        this.readRedirect(fd);
      } else {
        const word = this.readWord();
        if (this.current.words.length === 0 && !word.dynamic && RESERVED.has(word.text)) {
          this.complex = true;
        }
        this.current.words.push(word);
      }
    }
    this.readHeredocBodies();
    this.endPipeline();
    return { pipelines: this.pipelines, complex: this.complex };
  }

  /** Digits at `at` followed at once by `<` or `>` (at most 3 digits: a descriptor). */
  private fdBeforeRedirect(): boolean {
    let end = this.at;
    while (isDigit(this.text[end]) && end - this.at < 4) end++;
    return end - this.at <= 3 && (this.text[end] === '<' || this.text[end] === '>');
  }

  private endCommand(): void {
    if (this.current.words.length > 0 || this.current.redirects.length > 0) {
      this.commands.push(this.current);
    }
    this.current = { words: [], redirects: [] };
  }

  private endPipeline(): void {
    this.endCommand();
    if (this.commands.length > 0) this.pipelines.push(this.commands);
    this.commands = [];
  }

  private readRedirect(fd: number | undefined): void {
    const text = this.text;
    const operators = ['&>>', '&>', '<<<', '<<-', '<<', '<&', '<>', '<', '>>', '>&', '>|', '>'];
    const op = operators.find((candidate) => text.startsWith(candidate, this.at)) as string;
    this.at += op.length;
    while (isBlank(text[this.at])) this.at++;
    const target = this.readWord();
    const redirect: ShellRedirect = { op, target, ...(fd !== undefined ? { fd } : {}) };
    this.current.redirects.push(redirect);
    if (op === '<<' || op === '<<-') {
      this.heredocs.push({ redirect, delimiter: target.text, stripTabs: op === '<<-' });
    }
  }

  /** After a new line: the bodies of the heredocs opened on the line before, in order. */
  private readHeredocBodies(): void {
    const text = this.text;
    for (const heredoc of this.heredocs) {
      const start = this.at;
      for (;;) {
        const lineEnd = text.indexOf('\n', this.at);
        const end = lineEnd < 0 ? text.length : lineEnd;
        let lineStart = this.at;
        if (heredoc.stripTabs) while (lineStart < end && text[lineStart] === '\t') lineStart++;
        const matches =
          end - lineStart === heredoc.delimiter.length &&
          text.startsWith(heredoc.delimiter, lineStart);
        if (matches || lineEnd < 0) {
          heredoc.redirect.body = text.slice(start, matches ? Math.max(start, this.at - 1) : end);
          this.at = lineEnd < 0 ? text.length : lineEnd + 1;
          break;
        }
        this.at = lineEnd + 1;
      }
    }
    this.heredocs = [];
  }

  /** One word at `at`, quotes and escapes undone; empty when `at` is at an operator. */
  private readWord(): ShellWord {
    const text = this.text;
    const start = this.at;
    let word = '';
    let dynamic = false;
    while (this.at < text.length) {
      const c = text[this.at] as string;
      if (isBlank(c) || isOperator(c)) break;
      if (c === "'") {
        const end = text.indexOf("'", this.at + 1);
        const stop = end < 0 ? text.length : end;
        word += text.slice(this.at + 1, stop);
        this.at = stop + 1;
      } else if (c === '"') {
        this.at++;
        while (this.at < text.length && text[this.at] !== '"') {
          const inner = text[this.at] as string;
          if (inner === '\\' && '"\\$`\n'.includes(text[this.at + 1] ?? '')) {
            if (text[this.at + 1] !== '\n') word += text[this.at + 1];
            this.at += 2;
          } else if (inner === '$' || inner === '`') {
            dynamic = true;
            this.skipExpansion();
          } else {
            word += inner;
            this.at++;
          }
        }
        this.at++;
      } else if (c === '\\') {
        if (this.at + 1 < text.length && text[this.at + 1] !== '\n') word += text[this.at + 1];
        this.at += 2;
      } else if (c === '$' || c === '`') {
        dynamic = true;
        this.skipExpansion();
      } else {
        if (c === '*' || c === '?' || c === '[' || (c === '~' && this.at === start)) {
          dynamic = true;
        }
        word += c;
        this.at++;
      }
    }
    return { text: word, dynamic };
  }

  /** Skips `$name`, `${…}`, `$(…)` or a backquoted command at `at`. */
  private skipExpansion(): void {
    const text = this.text;
    if (text[this.at] === '`') {
      const end = text.indexOf('`', this.at + 1);
      this.at = end < 0 ? text.length : end + 1;
      return;
    }
    const next = text[this.at + 1];
    if (next === '(' || next === '{') {
      const close = next === '(' ? ')' : '}';
      let depth = 0;
      for (let index = this.at + 1; index < text.length; index++) {
        const c = text[index];
        if (c === "'") {
          const end = text.indexOf("'", index + 1);
          if (end < 0) break;
          index = end;
        } else if (c === '\\') {
          index++;
        } else if (c === next) {
          depth++;
        } else if (c === close && --depth === 0) {
          this.at = index + 1;
          return;
        }
      }
      this.at = text.length;
      return;
    }
    this.at++;
    while (this.at < text.length && /[A-Za-z0-9_]/.test(text[this.at] as string)) this.at++;
  }
}

/** The script as pipelines of simple commands, or undefined when it is too long to parse. */
export function parseShellScript(script: string): ShellScript | undefined {
  if (script.length > MAX_SHELL_SCRIPT_CHARS) return undefined;
  return new Parser(script).parse();
}
