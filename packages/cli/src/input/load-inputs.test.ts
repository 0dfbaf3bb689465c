import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadInputs } from './load-inputs.js';

const dir = mkdtempSync(join(tmpdir(), 'toolmask-inputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const good = JSON.stringify([
  { role: 'user', parts: [{ text: 'hi' }] },
  { role: 'model', parts: [{ text: 'hello' }] },
]);

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

async function reasonFor(name: string, text: string): Promise<string | undefined> {
  const { rejected, tasks } = await loadInputs([write(name, text)]);
  expect(tasks).toEqual([]);
  return rejected[0]?.reason;
}

describe('loadInputs: bad input, one reason per file', () => {
  it('a file that is not JSON', async () => {
    expect(await reasonFor('broken.json', '[{"role": "user",')).toMatch(/^not valid JSON \(/);
  });
  it('an empty file', async () => {
    expect(await reasonFor('empty.json', '  \n')).toBe('the file is empty');
  });
  it('JSON that is neither format', async () => {
    expect(await reasonFor('object.json', '{"hello": 1}')).toBe(
      'not a session: expected a JSON array of Content, a gemini-cli chat recording or OpenAI-style chat messages',
    );
  });
  it('an array that is not Content', async () => {
    expect(await reasonFor('roles.json', '[{"role": "system", "parts": []}]')).toBe(
      'not a Content array: item 0: role must be "user" or "model", got "system"',
    );
    expect(await reasonFor('parts.json', '[{"role": "user", "parts": "hi"}]')).toBe(
      'not a Content array: item 0: parts must be an array',
    );
    expect(await reasonFor('none.json', '[]')).toBe(
      'not a Content array: the array is empty: nothing to replay',
    );
  });
  it('a .jsonl file that is not a session of any known format', async () => {
    expect(await reasonFor('other.jsonl', '{"a":1}\n{"b":2}\n')).toBe(
      'not a session: expected a Claude Code transcript, a Codex session file, a qwen-code or gemini-cli chat recording (JSON Lines)',
    );
  });
  it('a chat recording with nothing sent to the model', async () => {
    expect(
      await reasonFor(
        'quiet.jsonl',
        '{"sessionId":"s","projectHash":"h"}\n{"id":"1","type":"info","content":"hi"}\n',
      ),
    ).toBe('the chat recording has no messages that were sent to the model');
  });
  it('a path that does not exist', async () => {
    const { rejected } = await loadInputs([join(dir, 'missing.json')]);
    expect(rejected).toEqual([
      {
        file: join(dir, 'missing.json'),
        reason: 'no such file or directory',
        fromDirectory: false,
      },
    ]);
  });
});

describe('loadInputs: directories', () => {
  it('loads session files in path order, subfolders included; skips other JSON; lists damaged files', async () => {
    const folder = join(dir, 'mixed');
    mkdirSync(join(folder, 'nested', 'deeper'), { recursive: true });
    mkdirSync(join(folder, '.hidden'));
    writeFileSync(join(folder, 'b.json'), good);
    writeFileSync(join(folder, 'a.json'), good);
    writeFileSync(join(folder, 'c.json'), 'not json');
    writeFileSync(join(folder, 'README.md'), '# notes');
    writeFileSync(join(folder, 'sources.json'), '{"traces": 2}');
    writeFileSync(join(folder, 'logs.json'), '[{"sessionId": "s", "message": "hi"}]');
    writeFileSync(join(folder, 'nested', 'd.json'), good);
    writeFileSync(join(folder, 'nested', 'deeper', 'e.json'), good);
    writeFileSync(join(folder, '.hidden', 'f.json'), good);
    const { tasks, rejected, skipped, directories } = await loadInputs([folder]);
    expect(tasks.map((task) => task.label)).toEqual(['a', 'b', 'd', 'e']);
    expect(rejected).toEqual([
      {
        file: join(folder, 'c.json'),
        reason: expect.stringMatching(/^not valid JSON/),
        fromDirectory: true,
      },
    ]);
    expect(skipped.map((entry) => entry.file)).toEqual([
      join(folder, 'logs.json'),
      join(folder, 'sources.json'),
    ]);
    expect(skipped[1]!.reason).toMatch(/^not a session/);
    expect(directories).toEqual([{ directory: folder, sessions: 4, skipped: 2 }]);

    const flat = await loadInputs([folder], { recursive: false });
    expect(flat.tasks.map((task) => task.label)).toEqual(['a', 'b']);
  });

  it('a damaged Content array in a directory is still bad input, not skipped', async () => {
    const folder = join(dir, 'damaged');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.json'), good);
    writeFileSync(join(folder, 'b.json'), '[{"role": "system", "parts": []}]');
    const { rejected, skipped } = await loadInputs([folder]);
    expect(skipped).toEqual([]);
    expect(rejected.map((entry) => entry.file)).toEqual([join(folder, 'b.json')]);
  });

  it('a file named on the command line is rejected even when it is merely not a session', async () => {
    const { rejected, skipped } = await loadInputs([write('settings-like.json', '{"a": 1}')]);
    expect(skipped).toEqual([]);
    expect(rejected).toHaveLength(1);
  });

  it('a directory without session files is bad input', async () => {
    const folder = join(dir, 'empty-folder');
    mkdirSync(folder);
    writeFileSync(join(folder, 'settings.json'), '{}');
    const { rejected } = await loadInputs([folder]);
    expect(rejected[0]?.reason).toBe(
      'the directory has no session files (.json or .jsonl, subfolders included)',
    );
  });
});

describe('loadInputs: --since reads only files written since', () => {
  it('leaves unread a directory file last written before modifiedSince, and counts it', async () => {
    const folder = join(dir, 'since');
    mkdirSync(folder);
    const old = join(folder, 'old.json');
    const recent = join(folder, 'recent.json');
    writeFileSync(old, good);
    writeFileSync(recent, good);
    const day = 24 * 60 * 60 * 1000;
    const now = Date.now();
    utimesSync(old, new Date(now - 40 * day), new Date(now - 40 * day));
    const loaded = await loadInputs([folder], { modifiedSince: now - 30 * day });
    expect(loaded.older).toBe(1);
    expect(loaded.tasks.map((task) => task.file)).toEqual([recent]);
    // Named on its own, a file is read whatever its age (its records are filtered later).
    const named = await loadInputs([old], { modifiedSince: now - 30 * day });
    expect(named.tasks).toHaveLength(1);
  });
});
