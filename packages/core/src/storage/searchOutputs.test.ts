import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchToolOutputs, validateSearchToolOutputsParams } from './searchOutputs.js';
import { SEARCH_LIMITS } from './searchQuery.js';
import { ToolOutputReadError, type ToolOutputAccess } from './toolOutputReader.js';

let root: string;
let tempDir: string;
let access: ToolOutputAccess;
const outputs = () => path.join(tempDir, 'tool-outputs');

/** Writes an output the way the store names it, with a chosen age (older = smaller mtime). */
function save(session: string, name: string, text: string, ageSeconds = 0): void {
  const folder = path.join(outputs(), `session-${session}`);
  fs.mkdirSync(folder, { recursive: true });
  const file = path.join(folder, name);
  fs.writeFileSync(file, text);
  const when = new Date(Date.UTC(2026, 0, 1) - ageSeconds * 1000);
  fs.utimesSync(file, when, when);
}

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-search-')));
  tempDir = path.join(root, 'project');
  const log = Array.from({ length: 400 }, (_, i) => `step ${i + 1} ok`);
  log[199] = 'step 200 failed: ECONNREFUSED 127.0.0.1:6379 (retryDelay 250)';
  save('abc', 'run_shell_command.call-1.0123456789abcdef.txt', log.join('\n'), 30);
  save(
    'abc',
    'read_file.call-2.1111111111111111.txt',
    'export const retryDelay = 250;\nexport function connect() {}\n',
    20,
  );
  save('abc', 'grep_search.call-3.2222222222222222.txt', 'src/a.ts:3: retryDelay\n', 10);
  save('old', 'read_file.call-4.3333333333333333.txt', 'ECONNREFUSED in another session\n', 5);
  fs.writeFileSync(path.join(root, 'secret.txt'), 'ECONNREFUSED top secret');
  fs.symlinkSync(
    path.join(root, 'secret.txt'),
    path.join(outputs(), 'session-abc', 'leak.call-9.4444444444444444.txt'),
  );
  access = { projectTempDir: tempDir, sessionId: 'abc', allowOtherSessions: false };
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('searchToolOutputs', () => {
  it('finds a word only one output holds, with its file, line number and context', async () => {
    const result = await searchToolOutputs({ query: 'ECONNREFUSED' }, access);
    expect(result.matches).toBe(1);
    expect(result.hits).toHaveLength(1);
    const hit = result.hits[0]!;
    expect(hit.file).toBe('session-abc/run_shell_command.call-1.0123456789abcdef.txt');
    expect(hit.line).toBe(200);
    expect(result.text).toContain('session-abc/run_shell_command.call-1.0123456789abcdef.txt\n');
    expect(result.text).toContain('  199-step 199 ok\n  200:step 200 failed: ECONNREFUSED');
    expect(result.text).toContain('  201-step 201 ok');
    // Neither the other session's output nor the symlinked file outside is searched.
    expect(result.text).not.toContain('another session');
    expect(result.text).not.toContain('top secret');
    expect(result.outputsTotal).toBe(3);
  });

  it("reaches the project's other sessions only when allowOtherSessions", async () => {
    const result = await searchToolOutputs(
      { query: 'econnrefused' },
      { ...access, allowOtherSessions: true },
    );
    expect(result.hits.map((hit) => hit.file)).toEqual([
      'session-old/read_file.call-4.3333333333333333.txt',
      'session-abc/run_shell_command.call-1.0123456789abcdef.txt',
    ]);
    expect(result.text).not.toContain('top secret');
  });

  it('ranks lines with more of the words first, then newer outputs', async () => {
    const result = await searchToolOutputs({ query: 'retryDelay ECONNREFUSED' }, access);
    expect(result.hits.map((hit) => [hit.file.split('/')[1]!.split('.')[0], hit.line])).toEqual([
      ['run_shell_command', 200], // both words
      ['grep_search', 1], // one word, newest output
      ['read_file', 1],
    ]);
  });

  it('takes a regex in the bounded engine, and refuses what RE2 cannot run', async () => {
    const result = await searchToolOutputs({ query: 'step 2\\d\\d failed', regex: true }, access);
    expect(result.hits.map((hit) => hit.line)).toEqual([200]);
    // Catastrophic for a backtracking engine; linear here.
    const evil = await searchToolOutputs({ query: '(s+)+$x', regex: true }, access);
    expect(evil.matches).toBe(0);
    await expect(searchToolOutputs({ query: 'a(?=b)', regex: true }, access)).rejects.toMatchObject(
      { code: 'INVALID_PATTERN' },
    );
  });

  it('treats words literally: metacharacters match themselves', async () => {
    const result = await searchToolOutputs({ query: '127.0.0.1:6379 (retryDelay' }, access);
    expect(result.hits[0]?.line).toBe(200);
    const none = await searchToolOutputs({ query: '1.7.0.0' }, access);
    expect(none.matches).toBe(0);
    expect(none.text).toContain('no line matches "1.7.0.0" in 3 saved outputs');
  });

  it('refuses a query too long, too many words, an empty one and a bad limit, naming the rule', () => {
    const huge = 'x'.repeat(1 << 20);
    expect(validateSearchToolOutputsParams({ query: huge })).toMatch(/longer than 500 characters/);
    const words = Array.from({ length: 13 }, (_, i) => `w${i}`).join(' ');
    expect(validateSearchToolOutputsParams({ query: words })).toMatch(/at most 12/);
    expect(validateSearchToolOutputsParams({ query: '  ' })).toMatch(/query is required/);
    expect(validateSearchToolOutputsParams({ query: 'a', limit: 0 })).toMatch(/limit must be/);
    expect(validateSearchToolOutputsParams({ query: 'a' })).toBeNull();
  });

  it('rejects with ToolOutputReadError, and stops at once when aborted', async () => {
    await expect(searchToolOutputs({ query: '' }, access)).rejects.toBeInstanceOf(
      ToolOutputReadError,
    );
    const controller = new AbortController();
    controller.abort();
    await expect(
      searchToolOutputs({ query: 'ok' }, access, { signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('keeps its answer within the limits however many lines match', async () => {
    const result = await searchToolOutputs({ query: 'ok', limit: 1_000 }, access);
    expect(result.matches).toBe(399);
    expect(result.hits.length).toBeLessThanOrEqual(SEARCH_LIMITS.maxResults);
    expect(Buffer.byteLength(result.text)).toBeLessThan(SEARCH_LIMITS.maxBytes + 1_000);
    expect(result.text).toMatch(/showing the best \d+ \(limit=100/);
  });

  it('ranks a better line first however many weaker ones matched before it', async () => {
    const text = [...Array.from({ length: 500 }, (_, i) => `alpha ${i}`), 'alpha beta'].join('\n');
    save('many-weak', 'run_shell_command.call-1.6666666666666666.txt', text);
    const result = await searchToolOutputs(
      { query: 'alpha beta', limit: 3 },
      { ...access, sessionId: 'many-weak' },
    );
    expect(result.matches).toBe(501);
    expect(result.hits.map((hit) => hit.line)).toEqual([501, 1, 2]);
  });

  it('shows the stretch of a long line around the match', async () => {
    save('long', 'read_file.call-1.5555555555555555.txt', `${'x'.repeat(50_000)} needle here`);
    const result = await searchToolOutputs({ query: 'needle' }, { ...access, sessionId: 'long' });
    expect(result.hits[0]?.text).toMatch(/^\[49,\d{3} characters\] … x+ needle here$/);
  });
});

describe('searchToolOutputs over many outputs', () => {
  it('looks at the newest outputs only, and says so', async () => {
    const maxOutputs = 200;
    const many = maxOutputs + 20;
    const folder = path.join(outputs(), 'session-many');
    fs.mkdirSync(folder, { recursive: true });
    for (let i = 0; i < many; i++) {
      const file = path.join(folder, `shell.call-${i}.${i.toString(16).padStart(16, '0')}.txt`);
      fs.writeFileSync(file, i < 20 ? 'rare word\n' : 'common\n');
      const when = new Date(Date.UTC(2026, 0, 1) + i * 1000);
      fs.utimesSync(file, when, when);
    }
    const result = await searchToolOutputs(
      { query: 'rare' },
      { ...access, sessionId: 'many' },
      { maxOutputs },
    );
    // The 20 oldest hold the word, and are past the newest maxOutputs.
    expect(result.matches).toBe(0);
    expect(result.outputsTotal).toBe(many);
    expect(result.outputsSearched).toBe(maxOutputs);
    expect(result.text).toContain(`only the newest 200 outputs were searched`);
  });
});
