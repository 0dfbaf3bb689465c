import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  READ_LIMITS,
  ToolOutputReadError,
  readToolOutput,
  resolveToolOutputFile,
  validateReadToolOutputParams,
  type ReadToolOutputParams,
  type ToolOutputAccess,
} from './toolOutputReader.js';

let root: string;
let tempDir: string;
let session: string;
let other: string;
let access: ToolOutputAccess;
const NAME = 'run_shell_command.call-7.0123456789abcdef.txt';
const lines = Array.from(
  { length: 5_000 },
  (_, i) => `line ${i + 1}${i % 1000 === 999 ? ' ERROR boom' : ''}`,
);
const text = lines.join('\n');

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-reader-')));
  tempDir = path.join(root, 'project');
  session = path.join(tempDir, 'tool-outputs', 'session-abc');
  other = path.join(tempDir, 'tool-outputs', 'session-old');
  fs.mkdirSync(session, { recursive: true });
  fs.mkdirSync(other, { recursive: true });
  fs.writeFileSync(path.join(session, NAME), text);
  fs.writeFileSync(path.join(session, 'read_file.call-8.aaaaaaaaaaaaaaaa.txt'), 'short\r\nfile');
  fs.writeFileSync(path.join(other, 'grep_search.call-1.bbbbbbbbbbbbbbbb.txt'), 'from before');
  fs.writeFileSync(path.join(root, 'secret.txt'), 'top secret');
  fs.symlinkSync(
    path.join(root, 'secret.txt'),
    path.join(session, 'leak.call-9.cccccccccccccccc.txt'),
  );
  fs.mkdirSync(path.join(session, 'nested.call-2.dddddddddddddddd.txt'));
  access = { projectTempDir: tempDir, sessionId: 'abc', allowOtherSessions: false };
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

async function read(params: ReadToolOutputParams, over: Partial<ToolOutputAccess> = {}) {
  return readToolOutput(params, { ...access, ...over });
}

async function refusal(params: ReadToolOutputParams, over: Partial<ToolOutputAccess> = {}) {
  try {
    await read(params, over);
  } catch (error) {
    expect(error).toBeInstanceOf(ToolOutputReadError);
    return error as ToolOutputReadError;
  }
  throw new Error('expected a refusal');
}

describe('range mode', () => {
  it('returns the first 2,000 lines with a footer that says how to get the rest', async () => {
    const result = await read({ file: path.join(session, NAME) });
    const body = result.text.split('\n');
    expect(body.slice(0, -1)).toEqual(lines.slice(0, READ_LIMITS.maxLines));
    expect(body.at(-1)).toBe(
      '[read_tool_output: lines 1-2000 of 5000; call again with offset=2001 for more]',
    );
    expect(result).toMatchObject({
      firstLine: 1,
      lastLine: 2000,
      totalLines: 5000,
      truncated: true,
    });
  });

  it('returns exactly the requested lines, and says when the output ends', async () => {
    const result = await read({ file: path.join(session, NAME), offset: 4_998, limit: 10 });
    expect(result.text).toBe(
      'line 4998\nline 4999\nline 5000 ERROR boom\n[read_tool_output: lines 4998-5000 of 5000, end of output]',
    );
    const middle = await read({ file: path.join(session, NAME), offset: 10, limit: 3 });
    expect(middle.text).toBe(
      'line 10\nline 11\nline 12\n[read_tool_output: lines 10-12 of 5000; call again with offset=13 for more]',
    );
  });

  it('caps limit at 2,000 lines and the reply at 64 KB, cutting very long lines', async () => {
    const big = Array.from({ length: 100 }, (_, i) => `${i}:${'y'.repeat(5_000)}`).join('\n');
    const file = path.join(session, 'big.call-3.eeeeeeeeeeeeeeee.txt');
    fs.writeFileSync(file, big);
    const result = await read({ file, limit: 100_000 });
    expect(Buffer.byteLength(result.text)).toBeLessThanOrEqual(READ_LIMITS.maxBytes + 400);
    const body = result.text.split('\n');
    expect(body[0]).toMatch(/^0:y{1998} … \[3,002 more characters cut\]$/);
    expect(body.at(-1)).toMatch(
      /^\[read_tool_output: lines 1-\d+ of 100 \(65,536-byte limit per call\); call again with offset=\d+ for more; lines longer than 2,000 characters were cut/,
    );
  });

  it('counts lines like the snippet header and drops CR of CRLF', async () => {
    const result = await read({ file: 'read_file.call-8.aaaaaaaaaaaaaaaa.txt' });
    expect(result.text).toBe('short\nfile\n[read_tool_output: lines 1-2 of 2, end of output]');
  });

  it('refuses an offset past the end with the line count', async () => {
    const error = await refusal({ file: NAME, offset: 5_001 });
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.message).toBe('offset 5001 is past the end: the output has 5000 lines.');
  });
});

describe('pattern mode', () => {
  it('returns matching lines with numbers and two lines of context', async () => {
    const result = await read({ file: NAME, pattern: 'ERROR' });
    expect(result.text.split('\n').slice(0, 11)).toEqual([
      '998-line 998',
      '999-line 999',
      '1000:line 1000 ERROR boom',
      '1001-line 1001',
      '1002-line 1002',
      '--',
      '1998-line 1998',
      '1999-line 1999',
      '2000:line 2000 ERROR boom',
      '2001-line 2001',
      '2002-line 2002',
    ]);
    expect(result.text.split('\n').at(-1)).toBe(
      '[read_tool_output: 5 of 5 matching lines in lines 1-5000 of 5000]',
    );
    expect(result.matches).toBe(5);
  });

  it('supports /flags/, offset and limit for paging through matches', async () => {
    const result = await read({ file: NAME, pattern: '/error/i', offset: 1_500, limit: 2 });
    const body = result.text.split('\n');
    expect(body.filter((line) => /^\d+:/.test(line))).toEqual([
      '2000:line 2000 ERROR boom',
      '3000:line 3000 ERROR boom',
    ]);
    expect(body.at(-1)).toBe(
      '[read_tool_output: 2 of 4 matching lines in lines 1500-5000 of 5000; stopped at limit=2: call again with the same pattern and offset=3003 for more]',
    );
  });

  it('merges overlapping context and marks neighbours that match too', async () => {
    const file = path.join(session, 'grep.call-4.ffffffffffffffff.txt');
    fs.writeFileSync(file, ['a', 'hit 1', 'b', 'hit 2', 'c', 'd', 'e', 'f'].join('\n'));
    const result = await read({ file, pattern: '^hit' });
    expect(result.text).toBe(
      [
        '1-a',
        '2:hit 1',
        '3-b',
        '4:hit 2',
        '5-c',
        '6-d',
        '[read_tool_output: 2 of 2 matching lines in lines 1-8 of 8]',
      ].join('\n'),
    );
  });

  it('says so when nothing matches', async () => {
    const result = await read({ file: NAME, pattern: 'nothing here' });
    expect(result.text).toBe(
      '[read_tool_output: no line matches nothing here in lines 1-5000 of 5000]',
    );
  });

  it('refuses an invalid regular expression with a clear message', async () => {
    const error = await refusal({ file: NAME, pattern: '(unclosed' });
    expect(error.code).toBe('INVALID_PATTERN');
    expect(error.message).toMatch(
      /^invalid pattern "\(unclosed": .*missing closing \).*RE2 syntax/,
    );
  });
});

describe('what a file argument may name', () => {
  it('the absolute path, the bare file name, a call id, or session-<id>/<name>', async () => {
    const real = path.join(session, NAME);
    expect(await resolveToolOutputFile(real, access)).toBe(real);
    expect(await resolveToolOutputFile(` ${NAME} `, access)).toBe(real);
    expect(await resolveToolOutputFile('call-7', access)).toBe(real);
    expect(await resolveToolOutputFile(`session-abc/${NAME}`, access)).toBe(real);
  });

  it.each([
    [
      'a path outside the tool outputs',
      () => '/etc/passwd',
      'OUTSIDE',
      /not an offloaded tool output of this session/,
    ],
    ['a path with ..', () => `${session}/../../../secret.txt`, 'OUTSIDE', /"\.\." is not allowed/],
    ['.. in a relative path', () => `../session-old/x.txt`, 'OUTSIDE', /"\.\." is not allowed/],
    [
      'the tool-outputs folder itself',
      () => path.join(tempDir, 'tool-outputs', 'x.txt'),
      'OUTSIDE',
      /not an offloaded tool output/,
    ],
    [
      'a symlink leading out',
      () => path.join(session, 'leak.call-9.cccccccccccccccc.txt'),
      'OUTSIDE',
      /link that leads outside/,
    ],
    [
      'a folder',
      () => path.join(session, 'nested.call-2.dddddddddddddddd.txt'),
      'NOT_A_FILE',
      /folder/,
    ],
    [
      'a missing file',
      () => path.join(session, 'gone.call-5.0000000000000000.txt'),
      'NOT_FOUND',
      /does not exist: .*retentionDays/,
    ],
    ['an unknown call id', () => 'call-404', 'NOT_FOUND', /no offloaded output for "call-404"/],
    [
      'another session (setting off)',
      () => path.join(other, 'grep_search.call-1.bbbbbbbbbbbbbbbb.txt'),
      'OTHER_SESSION',
      /allowOtherSessions/,
    ],
  ])('refuses %s with an error the model can act on', async (_label, file, code, message) => {
    const error = await refusal({ file: file() });
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });

  it('reads another session of the same project when allowOtherSessions is on', async () => {
    const file = path.join(other, 'grep_search.call-1.bbbbbbbbbbbbbbbb.txt');
    const result = await read({ file }, { allowOtherSessions: true });
    expect(result.text).toBe('from before\n[read_tool_output: lines 1-1 of 1, end of output]');
    expect((await read({ file: 'call-1' }, { allowOtherSessions: true })).filePath).toBe(file);
  });

  it('accepts the real form of a path whose temp dir is reached through a link', async () => {
    const linkedTemp = path.join(root, 'linked-project');
    fs.symlinkSync(tempDir, linkedTemp);
    const real = path.join(session, NAME);
    const result = await read({ file: real, offset: 1, limit: 1 }, { projectTempDir: linkedTemp });
    expect(result.text.split('\n')[0]).toBe('line 1');
    expect(result.filePath).toBe(real);
  });

  it('refuses a session folder that is a symlink, even to another session', async () => {
    const linked = path.join(tempDir, 'tool-outputs', 'session-linked');
    fs.symlinkSync(other, linked);
    const error = await refusal(
      { file: path.join(linked, 'grep_search.call-1.bbbbbbbbbbbbbbbb.txt') },
      { sessionId: 'linked' },
    );
    expect(error.code).toBe('OUTSIDE');
    expect(error.message).toMatch(/not a plain folder/);
  });

  it('refuses NUL and bad numbers before touching the disk', () => {
    expect(validateReadToolOutputParams({ file: 'a\0b' })).toMatch(/NUL/);
    expect(validateReadToolOutputParams({ file: '' })).toMatch(/file is required/);
    expect(validateReadToolOutputParams({ file: NAME, offset: 0 })).toMatch(/offset must be/);
    expect(validateReadToolOutputParams({ file: NAME, limit: 2.5 })).toMatch(/limit must be/);
    // What RE2 cannot do is refused up front; other syntax errors when the worker compiles it.
    expect(validateReadToolOutputParams({ file: NAME, pattern: 'a(?=b)' })).toMatch(
      /invalid pattern "a\(\?=b\)": it uses a lookahead/,
    );
    expect(
      validateReadToolOutputParams({ file: NAME, offset: 3, limit: 9, pattern: 'x' }),
    ).toBeNull();
  });
});
