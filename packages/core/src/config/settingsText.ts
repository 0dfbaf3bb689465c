/**
 * Reading a settings.json as gemini-cli reads it (JSON with `//` and block comments; trailing
 * commas are an error; a leading BOM is ignored; an empty file is no settings), safely:
 *
 * - **Only a regular file, at most `MAX_SETTINGS_BYTES`.** The file is opened `O_NONBLOCK` and
 *   checked on the open descriptor before a byte is read, so a FIFO or a device never blocks the
 *   read (it used to hang every turn) and a huge file is refused with a clear error.
 * - **Linear time.** Comments are scanned by jsonc-parser (linear in the text; the former
 *   `strip-json-comments` took 0.4 s per MB of comment). Syntax errors come from its parser, with
 *   line and column computed from their offsets. The value itself is `JSON.parse` of the text
 *   with comments blanked out, so it is exactly what gemini-cli reads (`__proto__` is a plain
 *   key, the last of duplicate keys wins).
 */
import * as nodeFs from 'node:fs';
import { createRequire } from 'node:module';
import type * as JsoncParser from 'jsonc-parser';
import type { ParseError } from 'jsonc-parser';
import { readUpTo } from '../utils/boundedRead.js';
import { describeError } from '../utils/safeCall.js';
import { ToolmaskError } from '../utils/toolmaskError.js';

/** The largest settings file read: gemini-cli's are a few KB. */
export const MAX_SETTINGS_BYTES = 1024 * 1024;

export type SettingsFileSystem = Pick<typeof nodeFs, 'promises'>;

let jsoncParser: typeof JsoncParser | undefined;

/**
 * jsonc-parser, loaded on the first parse: every `toolmask` launcher imports this module before
 * its client starts, and most find no settings file to parse (issue 30: its UMD build is ~10 ms
 * of CPU to load, paid once per installed copy).
 */
function jsonc(): typeof JsoncParser {
  return (jsoncParser ??= createRequire(import.meta.url)('jsonc-parser') as typeof JsoncParser);
}

// jsonc-parser's `SyntaxKind` is a const enum of its typings: its values, spelled out.
const LINE_COMMENT = 12;
const BLOCK_COMMENT = 13;
const END_OF_FILE = 17;

/**
 * `text` with every comment blanked out by spaces (offsets unchanged), scanned once. (jsonc-parser's
 * own `stripComments` with a replacement character takes ~0.3 s per MB of comment.)
 */
function blankComments(text: string): string {
  const scanner = jsonc().createScanner(text, false);
  const parts: string[] = [];
  let copied = 0;
  for (let kind = scanner.scan(); kind !== END_OF_FILE; kind = scanner.scan()) {
    if (kind !== LINE_COMMENT && kind !== BLOCK_COMMENT) continue;
    const start = scanner.getTokenOffset();
    const length = scanner.getTokenLength();
    parts.push(text.slice(copied, start), ' '.repeat(length));
    copied = start + length;
  }
  parts.push(text.slice(copied));
  return parts.join('');
}

/** Line and column (1-based) of a character offset. */
function lineAndColumn(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) {
    line++;
    lineStart = at + 1;
  }
  return `line ${line}, column ${offset - lineStart + 1}`;
}

/**
 * A settings.json text as gemini-cli reads it (see the module comment). Throws a `SyntaxError`
 * whose message says what is wrong and where (`CommaExpected at line 3, column 3`).
 */
export function parseSettingsText(text: string): unknown {
  const source = text.replace(/^\uFEFF/, '');
  // No settings (what the parse below makes of it too), and no parser to load: the launchers
  // parse '' for each of a client's settings files that does not exist.
  if (source.trim() === '') return undefined;
  const errors: ParseError[] = [];
  const { parse, printParseErrorCode } = jsonc();
  try {
    parse(source, errors, {
      allowTrailingComma: false,
      disallowComments: false,
      allowEmptyContent: true,
    });
  } catch (error) {
    // The parser recurses per nesting level: 100,000 `[` exhaust the stack.
    throw new SyntaxError(`nested too deeply (${describeError(error)})`, { cause: error });
  }
  const first = errors[0];
  if (first) {
    throw new SyntaxError(
      `${printParseErrorCode(first.error)} at ${lineAndColumn(source, first.offset)}`,
    );
  }
  // Comments become spaces, so positions (and JSON.parse's own errors) match the file.
  const json = blankComments(source);
  if (json.trim() === '') return undefined;
  try {
    return JSON.parse(json);
  } catch (error) {
    const position = /at position (\d+)/.exec(describeError(error));
    const where = position ? ` (${lineAndColumn(source, Number(position[1]))})` : '';
    throw new SyntaxError(`${describeError(error)}${where}`, { cause: error });
  }
}

/**
 * Why a settings file could not be read: `ENOENT` (no such file, or a folder on the way is a
 * file), `NOT_A_FILE`, `TOO_LARGE` or `READ_FAILED`.
 */
export type SettingsReadErrorCode = 'NOT_A_FILE' | 'TOO_LARGE' | 'READ_FAILED' | 'ENOENT';

/** A settings file that is not a regular file, is too large, or cannot be read. */
export class SettingsReadError extends ToolmaskError<SettingsReadErrorCode> {
  constructor(message: string, code: SettingsReadErrorCode, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/**
 * The text of a settings file (see the module comment). Throws `SettingsReadError`: `ENOENT`
 * when there is no such file (or a folder on the way is a file), `NOT_A_FILE`, `TOO_LARGE`, or
 * `READ_FAILED`.
 */
export async function readSettingsText(
  file: string,
  fs: SettingsFileSystem = nodeFs,
): Promise<string> {
  let handle: nodeFs.promises.FileHandle;
  try {
    handle = await fs.promises.open(
      file,
      nodeFs.constants.O_RDONLY | (nodeFs.constants.O_NONBLOCK ?? 0),
    );
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new SettingsReadError(`${file} does not exist`, 'ENOENT', { cause: error });
    }
    throw new SettingsReadError(`cannot open it: ${describeError(error)}`, 'READ_FAILED', {
      cause: error,
    });
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      throw new SettingsReadError(
        `it is not a regular file (${stats.isDirectory() ? 'a folder' : 'a FIFO, socket or device'}); settings files must be regular files`,
        'NOT_A_FILE',
      );
    }
    if (stats.size > MAX_SETTINGS_BYTES) {
      throw new SettingsReadError(
        `it is ${stats.size.toLocaleString('en-US')} bytes, larger than the 1 MB a settings file may be`,
        'TOO_LARGE',
      );
    }
    const bytes = await readUpTo(handle, MAX_SETTINGS_BYTES);
    if (!bytes) {
      throw new SettingsReadError(
        'it grew larger than the 1 MB a settings file may be',
        'TOO_LARGE',
      );
    }
    return bytes.toString('utf8');
  } catch (error) {
    if (error instanceof SettingsReadError) throw error;
    throw new SettingsReadError(`cannot read it: ${describeError(error)}`, 'READ_FAILED', {
      cause: error,
    });
  } finally {
    await handle.close();
  }
}
