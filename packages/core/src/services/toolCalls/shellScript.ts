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

import * as chars from './shellCharacters.js';
import { expansionEnd, fdBeforeRedirect, isDigit, redirectOperator } from './shellCharacters.js';

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
        case chars.SPACE:
        case chars.TAB:
        case chars.CR:
          this.at++;
          break;
        case chars.NEWLINE:
          this.at++;
          this.readHeredocBodies();
          this.endPipeline();
          break;
        case chars.HASH: {
          const end = text.indexOf('\n', this.at);
          this.at = end < 0 ? length : end;
          break;
        }
        case chars.SEMICOLON:
          this.at += text.charCodeAt(this.at + 1) === chars.SEMICOLON ? 2 : 1;
          this.endPipeline();
          break;
        case chars.AMPERSAND: {
          const next = text.charCodeAt(this.at + 1);
          if (next === chars.GREATER) {
            this.readRedirect(undefined);
          } else {
            this.at += next === chars.AMPERSAND ? 2 : 1;
            this.endPipeline();
          }
          break;
        }
        case chars.PIPE: {
          const next = text.charCodeAt(this.at + 1);
          if (next === chars.PIPE) {
            this.at += 2;
            this.endPipeline();
          } else {
            this.at += next === chars.AMPERSAND ? 2 : 1;
            this.endCommand();
          }
          break;
        }
        case chars.OPEN:
        case chars.CLOSE:
          this.complex = true;
          this.at++;
          this.endPipeline();
          break;
        case chars.LESS:
        case chars.GREATER:
          this.readRedirect(undefined);
          break;
        default:
          if (code === chars.BACKSLASH && text.charCodeAt(this.at + 1) === chars.NEWLINE) {
            this.at += 2;
          } else if (isDigit(code) && fdBeforeRedirect(text, this.at)) {
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
    const op = redirectOperator(text, this.at);
    this.at += op.length;
    for (;;) {
      const code = text.charCodeAt(this.at);
      if (code !== chars.SPACE && code !== chars.TAB && code !== chars.CR) break;
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
          while (lineStart < end && text.charCodeAt(lineStart) === chars.TAB) lineStart++;
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
    let dynamic = at < length && text.charCodeAt(at) === chars.TILDE;
    let run = at;
    // The plain run at the start of the word (most words are one) in one native step.
    chars.PLAIN_RUN.lastIndex = at;
    if (chars.PLAIN_RUN.test(text)) at = chars.PLAIN_RUN.lastIndex;
    while (at < length) {
      const code = text.charCodeAt(at);
      const kind = code < 128 ? chars.WORD_CLASS[code] : chars.LITERAL;
      if (kind === chars.LITERAL) {
        at++;
        continue;
      }
      if (kind === chars.GLOB) {
        dynamic = true;
        at++;
        continue;
      }
      if (kind === chars.WORD_END) break;
      if (at > run) word += text.slice(run, at);
      if (code === chars.SINGLE_QUOTE) {
        const end = text.indexOf("'", at + 1);
        const stop = end < 0 ? length : end;
        word += text.slice(at + 1, stop);
        at = stop + 1;
      } else if (code === chars.DOUBLE_QUOTE) {
        at++;
        let inner = at;
        while (at < length) {
          const quoted = text.charCodeAt(at);
          if (quoted === chars.DOUBLE_QUOTE) break;
          if (quoted === chars.BACKSLASH) {
            // `\` escapes only `" \ $`, a backquote and a new line (which it removes) here.
            const next = text.charCodeAt(at + 1);
            if (
              next === chars.DOUBLE_QUOTE ||
              next === chars.BACKSLASH ||
              next === chars.DOLLAR ||
              next === chars.BACKQUOTE ||
              next === chars.NEWLINE ||
              at + 1 >= length
            ) {
              if (at > inner) word += text.slice(inner, at);
              if (at + 1 < length && next !== chars.NEWLINE) word += text[at + 1];
              at += 2;
              inner = at;
              continue;
            }
          } else if (quoted === chars.DOLLAR || quoted === chars.BACKQUOTE) {
            if (at > inner) word += text.slice(inner, at);
            dynamic = true;
            at = expansionEnd(text, at);
            inner = at;
            continue;
          }
          at++;
        }
        if (at > inner) word += text.slice(inner, at);
        at++;
      } else if (code === chars.BACKSLASH) {
        if (at + 1 < length && text.charCodeAt(at + 1) !== chars.NEWLINE) word += text[at + 1];
        at += 2;
      } else {
        dynamic = true;
        at = expansionEnd(text, at);
      }
      run = at;
    }
    if (at > run) word += text.slice(run, at);
    this.at = at;
    return { text: word, dynamic };
  }
}

/** The script as pipelines of simple commands, or undefined when it is too long to parse. */
export function parseShellScript(script: string): ShellScript | undefined {
  if (script.length > MAX_SHELL_SCRIPT_CHARS) return undefined;
  return new Parser(script).parse();
}
