import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appendLines, writeAtomically } from './privateFiles.js';

let root: string;
afterEach(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
});

describe('private files', () => {
  it('makes the folder 0700 and the files 0600', async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-private-'));
    const file = path.join(root, 'a', 'b', 'records.jsonl');
    await appendLines(file, '{"n":1}\n');
    await writeAtomically(path.join(root, 'a', 'b', 'meta.json'), '{}\n');
    expect((await fs.stat(path.join(root, 'a', 'b'))).mode & 0o777).toBe(0o700);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect((await fs.stat(path.join(root, 'a', 'b', 'meta.json'))).mode & 0o777).toBe(0o600);
  });

  // Folders are checked once per process; retention may remove one later (an old conversation
  // that comes back): the next write makes it again instead of failing.
  it('a folder removed after it was checked is made again by the next write', async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-private-'));
    const folder = path.join(root, 'conversation');
    await appendLines(path.join(folder, 'decisions.jsonl'), '{"n":1}\n');
    await writeAtomically(path.join(folder, 'meta.json'), '{"n":1}\n');
    await fs.rm(folder, { recursive: true });

    await appendLines(path.join(folder, 'decisions.jsonl'), '{"n":2}\n');
    expect(await fs.readFile(path.join(folder, 'decisions.jsonl'), 'utf8')).toBe('{"n":2}\n');
    await fs.rm(folder, { recursive: true });
    await writeAtomically(path.join(folder, 'meta.json'), '{"n":2}\n');
    expect(await fs.readFile(path.join(folder, 'meta.json'), 'utf8')).toBe('{"n":2}\n');
    expect((await fs.stat(folder)).mode & 0o777).toBe(0o700);
    expect(await fs.readdir(folder)).toEqual(['meta.json']);
  });
});
