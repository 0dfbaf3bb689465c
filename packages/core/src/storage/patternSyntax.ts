/**
 * A `read_tool_output` pattern checked before any engine sees it: `error|fail` or `/error/i`
 * (flags i, m, s, u; `g` and `y` mean nothing line by line), at most `MAX_PATTERN_LENGTH`
 * characters, and nothing RE2 cannot do (lookaround, backreferences), found by one scan of the
 * pattern outside character classes. A pattern refused here, or later by the engine in its
 * worker (readPattern.ts), is a `PatternError` (`INVALID_PATTERN`) whose message is written for
 * the model: what is wrong, and what to write instead.
 */
import { ToolmaskError } from '../utils/toolmaskError.js';

/** The longest pattern accepted (characters): bounds compile time and program size. */
export const MAX_PATTERN_LENGTH = 1_000;

/**
 * A pattern the model passed that cannot be used; the message is written for the model. Code
 * `INVALID_PATTERN` (the reader turns it into a `ToolOutputReadError` of the same code).
 */
export class PatternError extends ToolmaskError<'INVALID_PATTERN'> {
  constructor(message: string) {
    super('INVALID_PATTERN', message);
  }
}

const FLAGGED_PATTERN = /^\/([\s\S]+)\/([a-z]*)$/;
const ALLOWED_FLAGS = /^[imsu]*$/;

/** A pattern as the worker compiles it: its body and its flag letters. */
export interface PatternSpec {
  body: string;
  flags: string;
  /** The pattern as the model wrote it, shortened for messages. */
  shown: string;
}

/** The syntax a pattern may use, with examples: the end of every refusal. */
export const SYNTAX_HINT =
  'pattern is a regular expression in RE2 syntax (like JavaScript without lookaround and backreferences), e.g. "error|fail" or "/timeout/i"';

/**
 * What RE2 cannot do, found before compiling (re2js's own messages for these are cryptic, and it
 * would read `\k<name>` as plain text): lookaround and backreferences, outside character classes.
 */
function unsupportedSyntax(source: string): string | undefined {
  let inClass = false;
  for (let index = 0; index < source.length; index++) {
    const char = source[index];
    if (char === '\\') {
      const next = source[index + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) return `a backreference (\\${next})`;
      if (!inClass && next === 'k' && source[index + 2] === '<')
        return 'a named backreference (\\k<...>)';
      index++;
    } else if (inClass) {
      if (char === ']') inClass = false;
    } else if (char === '[') {
      inClass = true;
    } else if (char === '(') {
      const ahead = source.slice(index + 1, index + 4);
      if (ahead.startsWith('?=') || ahead.startsWith('?!'))
        return `a lookahead (${ahead.slice(0, 2)})`;
      if (ahead === '?<=' || ahead === '?<!') return `a lookbehind (${ahead})`;
    }
  }
  return undefined;
}

function describePattern(pattern: string): string {
  return JSON.stringify(pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern);
}

/**
 * `error|fail` or `/error/i` (flags i, m, s, u; `g` and `y` mean nothing line by line), checked
 * without the engine: its length, and what RE2 cannot do. The engine itself (and its syntax
 * errors) lives in the worker only: loading it on the host's thread would block it for tens of
 * ms. Throws `PatternError` with a message for the model.
 */
export function checkReadPattern(pattern: string): PatternSpec {
  const shown = describePattern(pattern);
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new PatternError(
      `invalid pattern ${shown}: longer than ${MAX_PATTERN_LENGTH} characters. ${SYNTAX_HINT}.`,
    );
  }
  const flagged = FLAGGED_PATTERN.exec(pattern);
  const body = flagged && ALLOWED_FLAGS.test(flagged[2] ?? '') ? (flagged[1] ?? '') : pattern;
  const flags = flagged && body !== pattern ? (flagged[2] ?? '') : '';
  const unsupported = unsupportedSyntax(body);
  if (unsupported) {
    throw new PatternError(
      `invalid pattern ${shown}: it uses ${unsupported}, which the linear-time engine read_tool_output uses does not support; match the text itself instead (for "x(?=y)" search "xy"). ${SYNTAX_HINT}.`,
    );
  }
  return { body, flags, shown };
}
