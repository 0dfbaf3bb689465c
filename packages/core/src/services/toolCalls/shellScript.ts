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
 * parsed at all, and the parser is one forward scan (each character is looked at a bounded number
 * of times, heredoc bodies and `$(…)` included). It reads character codes, and takes each run of
 * plain characters as one slice found by one sticky character class (a word without quotes is one
 * slice of the script): a cold pass builds no string per character and runs little of its own
 * code per character before V8 has compiled it (issue 30).
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

// Character codes the scanner tests (`charCodeAt`: no one-character strings made).
const TAB = 9;
const NEWLINE = 10;
const CR = 13;
const SPACE = 32;
const DOUBLE_QUOTE = 34;
const HASH = 35;
const DOLLAR = 36;
const AMPERSAND = 38;
const SINGLE_QUOTE = 39;
const OPEN = 40;
const CLOSE = 41;
const STAR = 42;
const HYPHEN = 45;
const ZERO = 48;
const NINE = 57;
const SEMICOLON = 59;
const LESS = 60;
const GREATER = 62;
const QUESTION = 63;
const BRACKET = 91;
const BACKSLASH = 92;
const BACKQUOTE = 96;
const BRACE_OPEN = 123;
const PIPE = 124;
const BRACE_CLOSE = 125;
const TILDE = 126;

/** What a character does in an unquoted word (ASCII; any other character is `LITERAL`). */
const LITERAL = 0;
/** Ends the word: a blank or an operator (`\n ; & | ( ) < >`). */
const WORD_END = 1;
/** A glob character (`*`, `?`, `[`): kept, and the word is dynamic. */
const GLOB = 2;
/** A quote, an escape or an expansion (`' " \ $` and a backquote): read apart. */
const SPECIAL = 3;
const WORD_CLASS = new Uint8Array(128);
for (const code of [
  TAB,
  NEWLINE,
  CR,
  SPACE,
  SEMICOLON,
  AMPERSAND,
  PIPE,
  OPEN,
  CLOSE,
  LESS,
  GREATER,
]) {
  WORD_CLASS[code] = WORD_END;
}
for (const code of [STAR, QUESTION, BRACKET]) WORD_CLASS[code] = GLOB;
for (const code of [SINGLE_QUOTE, DOUBLE_QUOTE, BACKSLASH, DOLLAR, BACKQUOTE]) {
  WORD_CLASS[code] = SPECIAL;
}

/**
 * A run of `LITERAL` characters (no blank, operator, glob, quote, escape or expansion), matched
 * where the scan is (sticky): the one regular expression of the scan, a single character class
 * without alternation or backtracking, so linear like the rest.
 */
const PLAIN_RUN = /[^\t\n\r ;&|()<>*?['"\\$`]+/y;

const isDigit = (code: number) => code >= ZERO && code <= NINE;
/** `[A-Za-z0-9_]`: a character of a `$name`. */
const isNameChar = (code: number) =>
  (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || isDigit(code) || code === 95;

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
    const length = text.length;
    while (this.at < length) {
      const code = text.charCodeAt(this.at);
      switch (code) {
        case SPACE:
        case TAB:
        case CR:
          this.at++;
          break;
        case NEWLINE:
          this.at++;
          this.readHeredocBodies();
          this.endPipeline();
          break;
        case HASH: {
          const end = text.indexOf('\n', this.at);
          this.at = end < 0 ? length : end;
          break;
        }
        case SEMICOLON:
          this.at += text.charCodeAt(this.at + 1) === SEMICOLON ? 2 : 1;
          this.endPipeline();
          break;
        case AMPERSAND: {
          const next = text.charCodeAt(this.at + 1);
          if (next === GREATER) {
            this.readRedirect(undefined);
          } else {
            this.at += next === AMPERSAND ? 2 : 1;
            this.endPipeline();
          }
          break;
        }
        case PIPE: {
          const next = text.charCodeAt(this.at + 1);
          if (next === PIPE) {
            this.at += 2;
            this.endPipeline();
          } else {
            this.at += next === AMPERSAND ? 2 : 1;
            this.endCommand();
          }
          break;
        }
        case OPEN:
        case CLOSE:
          this.complex = true;
          this.at++;
          this.endPipeline();
          break;
        case LESS:
        case GREATER:
          this.readRedirect(undefined);
          break;
        default:
          if (code === BACKSLASH && text.charCodeAt(this.at + 1) === NEWLINE) {
            this.at += 2;
          } else if (isDigit(code) && this.fdBeforeRedirect()) {
            // `2>file`, `2>&1`: the digits name a file descriptor.
            let end = this.at;
            while (isDigit(text.charCodeAt(end))) end++;
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
    }
    this.readHeredocBodies();
    this.endPipeline();
    return { pipelines: this.pipelines, complex: this.complex };
  }

  /** Digits at `at` followed at once by `<` or `>` (at most 3 digits: a descriptor). */
  private fdBeforeRedirect(): boolean {
    const text = this.text;
    let end = this.at;
    while (isDigit(text.charCodeAt(end)) && end - this.at < 4) end++;
    const next = text.charCodeAt(end);
    return end - this.at <= 3 && (next === LESS || next === GREATER);
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

  /** The operator at `at` (`&>>`, `&>`, `<<<`, `<<-`, `<<`, `<&`, `<>`, `<`, `>>`, `>&`, `>|`, `>`). */
  private redirectOperator(): string {
    const text = this.text;
    const first = text.charCodeAt(this.at);
    const second = text.charCodeAt(this.at + 1);
    if (first === AMPERSAND) return text.charCodeAt(this.at + 2) === GREATER ? '&>>' : '&>';
    if (first === LESS) {
      if (second === LESS) {
        const third = text.charCodeAt(this.at + 2);
        return third === LESS ? '<<<' : third === HYPHEN ? '<<-' : '<<';
      }
      return second === AMPERSAND ? '<&' : second === GREATER ? '<>' : '<';
    }
    if (second === GREATER) return '>>';
    return second === AMPERSAND ? '>&' : second === PIPE ? '>|' : '>';
  }

  private readRedirect(fd: number | undefined): void {
    const text = this.text;
    const op = this.redirectOperator();
    this.at += op.length;
    for (;;) {
      const code = text.charCodeAt(this.at);
      if (code !== SPACE && code !== TAB && code !== CR) break;
      this.at++;
    }
    const target = this.readWord();
    const redirect: ShellRedirect = { op, target, ...(fd !== undefined ? { fd } : {}) };
    this.current.redirects.push(redirect);
    if (op === '<<' || op === '<<-') {
      this.heredocs.push({ redirect, delimiter: target.text, stripTabs: op === '<<-' });
    }
  }

  /** After a new line: the bodies of the heredocs opened on the line before, in order. */
  private readHeredocBodies(): void {
    if (this.heredocs.length === 0) return;
    const text = this.text;
    for (const heredoc of this.heredocs) {
      const start = this.at;
      for (;;) {
        const lineEnd = text.indexOf('\n', this.at);
        const end = lineEnd < 0 ? text.length : lineEnd;
        let lineStart = this.at;
        if (heredoc.stripTabs)
          while (lineStart < end && text.charCodeAt(lineStart) === TAB) lineStart++;
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

  /**
   * One word at `at`, quotes and escapes undone; empty when `at` is at an operator. Runs of
   * literal characters are taken as one slice each (a plain word is one slice of the script).
   */
  private readWord(): ShellWord {
    const text = this.text;
    const length = text.length;
    let at = this.at;
    let word = '';
    let dynamic = at < length && text.charCodeAt(at) === TILDE;
    let run = at;
    // The plain run at the start of the word (most words are one) in one native step.
    PLAIN_RUN.lastIndex = at;
    if (PLAIN_RUN.test(text)) at = PLAIN_RUN.lastIndex;
    while (at < length) {
      const code = text.charCodeAt(at);
      const kind = code < 128 ? WORD_CLASS[code] : LITERAL;
      if (kind === LITERAL) {
        at++;
        continue;
      }
      if (kind === GLOB) {
        dynamic = true;
        at++;
        continue;
      }
      if (kind === WORD_END) break;
      if (at > run) word += text.slice(run, at);
      if (code === SINGLE_QUOTE) {
        const end = text.indexOf("'", at + 1);
        const stop = end < 0 ? length : end;
        word += text.slice(at + 1, stop);
        at = stop + 1;
      } else if (code === DOUBLE_QUOTE) {
        at++;
        let inner = at;
        while (at < length) {
          const quoted = text.charCodeAt(at);
          if (quoted === DOUBLE_QUOTE) break;
          if (quoted === BACKSLASH) {
            // `\` escapes only `" \ $`, a backquote and a new line (which it removes) here.
            const next = text.charCodeAt(at + 1);
            if (
              next === DOUBLE_QUOTE ||
              next === BACKSLASH ||
              next === DOLLAR ||
              next === BACKQUOTE ||
              next === NEWLINE ||
              at + 1 >= length
            ) {
              if (at > inner) word += text.slice(inner, at);
              if (at + 1 < length && next !== NEWLINE) word += text[at + 1];
              at += 2;
              inner = at;
              continue;
            }
          } else if (quoted === DOLLAR || quoted === BACKQUOTE) {
            if (at > inner) word += text.slice(inner, at);
            dynamic = true;
            at = this.skipExpansion(at);
            inner = at;
            continue;
          }
          at++;
        }
        if (at > inner) word += text.slice(inner, at);
        at++;
      } else if (code === BACKSLASH) {
        if (at + 1 < length && text.charCodeAt(at + 1) !== NEWLINE) word += text[at + 1];
        at += 2;
      } else {
        dynamic = true;
        at = this.skipExpansion(at);
      }
      run = at;
    }
    if (at > run) word += text.slice(run, at);
    this.at = at;
    return { text: word, dynamic };
  }

  /** Where `$name`, `${…}`, `$(…)` or a backquoted command at `at` ends. */
  private skipExpansion(at: number): number {
    const text = this.text;
    const length = text.length;
    if (text.charCodeAt(at) === BACKQUOTE) {
      const end = text.indexOf('`', at + 1);
      return end < 0 ? length : end + 1;
    }
    const open = text.charCodeAt(at + 1);
    if (open === OPEN || open === BRACE_OPEN) {
      const close = open === OPEN ? CLOSE : BRACE_CLOSE;
      let depth = 0;
      for (let index = at + 1; index < length; index++) {
        const code = text.charCodeAt(index);
        if (code === SINGLE_QUOTE) {
          const end = text.indexOf("'", index + 1);
          if (end < 0) break;
          index = end;
        } else if (code === BACKSLASH) {
          index++;
        } else if (code === open) {
          depth++;
        } else if (code === close && --depth === 0) {
          return index + 1;
        }
      }
      return length;
    }
    let end = at + 1;
    while (end < length && isNameChar(text.charCodeAt(end))) end++;
    return end;
  }
}

/** The script as pipelines of simple commands, or undefined when it is too long to parse. */
export function parseShellScript(script: string): ShellScript | undefined {
  if (script.length > MAX_SHELL_SCRIPT_CHARS) return undefined;
  return new Parser(script).parse();
}
