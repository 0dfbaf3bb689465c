/**
 * The preview of a source file read (`cat`, `sed -n`, `nl -ba`, `read_file`): an outline with line
 * numbers, within the same budget as any preview:
 * - signatures (class, function and method declarations, and the like in other languages), spread
 *   evenly over the file, within `SIGNATURE_SHARE` of the budget: what is where;
 * - the region the call asked about: the lines after the declaration of a name the model wrote in
 *   the turn that made the call (`\`add\``, `_check_csv`, `Patch.__init__`) or in the call's own
 *   patterns (`grep -n "def delete"`, `sed -n '/class Base/,/def handle/p'`) count
 *   `REGION_WORTH` times a line elsewhere, for `REGION_LINES` lines;
 * - then as many informative lines (at least 12 non-blank characters) as the budget holds, the
 *   shortest first, wherever they are (lineSelection.ts).
 *
 * Why so (a one-off analysis of the shared traces, issue 25): three quarters of the lines agents
 * quote later are in the files they read, spread over the whole read rather than at its ends, and
 * signature and import lines are quoted less often than the average line; the lines of a function
 * the model named are quoted about twice as often. A read asked for by range (`sed -n '200,250p'`,
 * `read_file` with an offset) is already the region: its output is what the call asked for.
 */
import type { ToolCall } from './toolCall.js';
import {
  forEachBacktickIdentifier,
  forEachCodeWord,
  forEachQuotedIdentifier,
} from './turnWords.js';
import {
  MIN_INFORMATIVE_CHARS,
  linesAndNumbering,
  selectLines,
  spreadOrder,
  type SelectionLimits,
} from './lineSelection.js';

/** Share of the budget the signatures may take. */
const SIGNATURE_SHARE = 0.1;
/** Lines after a named declaration (and the one before it, a decorator) that count more. */
const REGION_LINES = 20;
/** What a line of the named region is worth, against 1 elsewhere. */
const REGION_WORTH = 2;
/** Names the model wrote that are too common to point anywhere. */
const COMMON_WORDS = new Set([
  'self',
  'this',
  'that',
  'None',
  'True',
  'False',
  'null',
  'true',
  'false',
  'return',
  'import',
  'from',
  'class',
  'def',
  'function',
  'line',
  'lines',
  'file',
  'with',
]);
/** At most this many names are looked for. */
const MAX_NAMES = 64;

const MODIFIERS =
  '(?:(?:export|default|public|private|protected|internal|static|final|abstract|async|override|pub|unsafe|extern|inline)\\s+)*';
/** A declaration line: class, function, method, type (Python, JS/TS, Go, Rust, Java, C#, Kotlin, Swift). */
const SIGNATURE = new RegExp(
  `^${MODIFIERS}(?:def|class|function\\*?|func|fn|fun|interface|struct|enum|trait|impl|type|record|object|module)\\s+[\\w$]`,
);

/** Turn texts whose names are remembered (a turn's outputs, and the turns of a pass nearby). */
const TURN_CACHE_SIZE = 256;
/** The names of a turn's text, by text: every output of a turn asks for them. */
const turnNamesCache = new Map<string, readonly string[]>();

/**
 * Names the model pointed at: identifiers in backticks, and words that look like code
 * (`snake_case`, `camelCase`), in the turn's text; identifiers in the quoted patterns of the
 * call's command (a `grep` or `sed` address). A turn's text is read once for all its outputs (its
 * names are remembered), so a pass reads each turn once, not once per output.
 */
export function namedIdentifiers(call: ToolCall | undefined): Set<string> {
  const names = new Set<string>(turnNames(call?.turnText ?? ''));
  const args = call?.args;
  const command =
    args !== null && typeof args === 'object' ? (args as Record<string, unknown>)['command'] : '';
  if (typeof command === 'string' && names.size < MAX_NAMES) {
    forEachQuotedIdentifier(command, Math.min(command.length, MAX_COMMAND_UNITS), (name) =>
      addName(names, name),
    );
  }
  return names;
}

/** Code units of a command whose quoted patterns are read. */
const MAX_COMMAND_UNITS = 4096;

/** Adds `name` to `names` unless it is common or `names` is full; false once it is full. */
function addName(names: Set<string>, name: string): boolean {
  if (names.size < MAX_NAMES && !COMMON_WORDS.has(name)) names.add(name);
  return names.size < MAX_NAMES;
}

/** The names of a turn's text (at most MAX_NAMES, in the order found), remembered by text. */
function turnNames(text: string): readonly string[] {
  if (text === '') return [];
  const known = turnNamesCache.get(text);
  if (known) return known;
  const names = new Set<string>();
  // Each scan stops when the names are full: a later name would not be kept.
  forEachBacktickIdentifier(text, (word) => addName(names, word));
  if (names.size < MAX_NAMES) {
    forEachCodeWord(text, (word) => word.length < 4 || addName(names, word));
  }
  const found = [...names];
  if (turnNamesCache.size >= TURN_CACHE_SIZE) {
    turnNamesCache.delete(turnNamesCache.keys().next().value as string);
  }
  turnNamesCache.set(text, found);
  return found;
}

/**
 * A declaration up to its name (modifiers, keyword, spaces). One expression for every output: one
 * built per output from the names it looks for cost a regular-expression compilation per output
 * (issue 30).
 */
const DECLARATION = new RegExp(`^${MODIFIERS}(?:def|class|function|func|fn|fun)\\s+`);
const isWordChar = (char: string | undefined) => char !== undefined && /\w/.test(char);

/** Whether `text` begins with `a` to `z`, as every modifier and keyword of `SIGNATURE` does. */
function startsLowerCase(text: string): boolean {
  const code = text.charCodeAt(0);
  return code >= 97 && code <= 122;
}

/**
 * Whether `text` declares one of `names` (the name whole: a word boundary after it). The names
 * are asked for only when `text` is a declaration: a read with none (a search's lines, a file
 * of data) never reads its turn's text for them.
 */
function declaresOneOf(text: string, asked: NamesAsked): boolean {
  const start = DECLARATION.exec(text)?.[0].length;
  if (start === undefined) return false;
  // Every name is made of `[A-Za-z0-9_$]`: one that `text` has at `start` is a prefix of the run
  // of those characters there that ends where a word does (the boundary rule).
  const ends: number[] = [];
  for (
    let end = start + 1;
    end <= text.length && isIdentifierCode(text.charCodeAt(end - 1));
    end++
  ) {
    if (isWordCode(text.charCodeAt(end - 1)) !== isWordCode(text.charCodeAt(end))) ends.push(end);
  }
  if (!ends.some((end) => asked.mayBe(text.slice(start, end)))) return false;
  const { names, identifiers } = asked.names();
  if (!identifiers) {
    return [...names].some((name) => {
      if (!text.startsWith(name, start)) return false;
      const end = start + name.length;
      return isWordChar(text[end - 1]) !== isWordChar(text[end]);
    });
  }
  return ends.some((end) => names.has(text.slice(start, end)));
}

/** Substring looks before the names are read from the turn anyway (see `namesAsked`). */
const MAX_LOOKS = 16;

interface NamesAsked {
  /** False only when `name` is none of the names (neither the turn's text nor the command has it). */
  mayBe(name: string): boolean;
  names(): NameSet;
}

/**
 * The names a read looks for (`namedIdentifiers`), read only when a declaration may be one of
 * them: every name is a piece of the turn's text or of the command, so a declared name that
 * neither holds is none, and a read whose declarations the model did not name never reads its
 * turn for names. After `MAX_LOOKS` looks, the names are read and looked up instead.
 */
function namesAsked(call: ToolCall | undefined): NamesAsked {
  let known: NameSet | undefined;
  let looks = 0;
  // The turn's text is read once, and only when a line declares something.
  let turnText: string | undefined;
  const textOf = () => (turnText ??= call?.turnText ?? '');
  const args = call?.args;
  const given =
    args !== null && typeof args === 'object' ? (args as Record<string, unknown>)['command'] : '';
  const command = typeof given === 'string' ? given : '';
  return {
    mayBe: (name) =>
      known !== undefined ||
      looks++ >= MAX_LOOKS ||
      textOf().includes(name) ||
      command.includes(name),
    names: () =>
      (known ??= nameSet(
        namedIdentifiers({ ...(args !== undefined ? { args } : {}), turnText: textOf() }),
      )),
  };
}

/** The names a read looks for, and whether all are `[A-Za-z0-9_$]+`. */
interface NameSet {
  names: ReadonlySet<string>;
  identifiers: boolean;
}

function nameSet(names: ReadonlySet<string>): NameSet {
  let identifiers = true;
  for (const name of names) {
    for (let index = 0; index < name.length && identifiers; index++) {
      identifiers = isIdentifierCode(name.charCodeAt(index));
    }
  }
  return { names, identifiers };
}

/** `/\w/` of one code unit: `[A-Za-z0-9_]` (NaN, past the end, is none). */
const isWordCode = (code: number) =>
  (code >= 97 && code <= 122) ||
  (code >= 65 && code <= 90) ||
  (code >= 48 && code <= 57) ||
  code === 95;
/** `[A-Za-z0-9_$]`. */
const isIdentifierCode = (code: number) => isWordCode(code) || code === 36;

/**
 * The outline of a source read's lines (see the module comment); `firstLine` is the number of
 * `lines[0]` in the saved output.
 */
export function sourceReadPreview(
  lines: readonly string[],
  call: ToolCall | undefined,
  limits: SelectionLimits,
  firstLine = 1,
): string {
  const { numbered, texts, ownNumbers } = linesAndNumbering(lines);
  const asked = namesAsked(call);
  const inRegion = new Array<number>(lines.length);
  const signatures: number[] = [];
  for (let index = 0; index < texts.length; index++) {
    const text = texts[index] as string;
    // Both expressions begin with a modifier or a keyword, all in lower case: a line that does
    // not is neither, and is not tried against them.
    if (!startsLowerCase(text)) continue;
    if (SIGNATURE.test(text)) signatures.push(index);
    if (declaresOneOf(text, asked)) {
      const end = Math.min(lines.length, index + REGION_LINES + 1);
      for (let at = Math.max(0, index - 1); at < end; at++) inRegion[at] = 1;
    }
  }
  const first: number[] = [];
  let signatureChars = 0;
  for (const index of spreadOrder(signatures)) {
    const chars = Math.min((texts[index] as string).length, limits.maxLineChars) + 8;
    if (signatureChars + chars > SIGNATURE_SHARE * limits.lineBudgetChars) continue;
    signatureChars += chars;
    first.push(index);
  }
  return selectLines(
    lines,
    {
      first,
      numbered,
      ownNumbers,
      worth: (index) =>
        (texts[index] as string).length < MIN_INFORMATIVE_CHARS
          ? 0
          : inRegion[index] === 1
            ? REGION_WORTH
            : 1,
    },
    limits,
    firstLine,
  );
}
