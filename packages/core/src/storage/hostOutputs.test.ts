import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostOutputPathOf, listHostOutputs } from './hostOutputs.js';
import { searchToolOutputs } from './searchOutputs.js';
import { readToolOutput, type ToolOutputAccess } from './toolOutputReader.js';

let root: string;
let projects: string;
let persisted: string;
let access: ToolOutputAccess;

/** Claude Code's layout: `<config>/projects/<project>/<session>/tool-results/<id>.txt`. */
function toolResults(project: string, session: string): string {
  const folder = path.join(projects, project, session, 'tool-results');
  fs.mkdirSync(folder, { recursive: true });
  return folder;
}

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-host-outputs-')));
  projects = path.join(root, 'claude', 'projects');
  const lines = Array.from({ length: 6001 }, (_, i) => String(100_000 + i));
  lines[3500] = 'needle: ECONNRESET in the persisted output';
  persisted = path.join(toolResults('-work-app', '974c16ed'), 'breu3hp1f.txt');
  fs.writeFileSync(persisted, lines.join('\n'));
  // A transcript beside the session folders, as Claude Code keeps them: never listed.
  fs.writeFileSync(path.join(projects, '-work-app', '974c16ed.jsonl'), 'ECONNRESET transcript\n');
  // What must stay unreadable: a file outside, a link to it, a hard link, a linked session folder.
  const secret = path.join(root, 'secret.txt');
  fs.writeFileSync(secret, 'ECONNRESET top secret\n');
  const other = toolResults('-work-app', 'aaaa');
  fs.symlinkSync(secret, path.join(other, 'link.txt'));
  fs.linkSync(secret, path.join(other, 'hard.txt'));
  fs.mkdirSync(path.join(root, 'elsewhere', 'tool-results'), { recursive: true });
  fs.writeFileSync(path.join(root, 'elsewhere', 'tool-results', 'x.txt'), 'ECONNRESET outside\n');
  fs.symlinkSync(path.join(root, 'elsewhere'), path.join(projects, '-work-app', 'linked'));
  const toolmaskTemp = path.join(root, 'toolmask');
  fs.mkdirSync(toolmaskTemp);
  access = {
    projectTempDir: toolmaskTemp,
    sessionId: '',
    allowOtherSessions: true,
    hostOutputRoots: [projects],
  };
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('hostOutputPathOf', () => {
  it('takes only a file directly in a tool-results folder of a session under a root', () => {
    expect(hostOutputPathOf(persisted, [projects])).toEqual({
      root: projects,
      project: '-work-app',
      session: '974c16ed',
      name: 'breu3hp1f.txt',
    });
    const under = (relative: string) => hostOutputPathOf(path.join(projects, relative), [projects]);
    expect(under('-work-app/974c16ed.jsonl')).toBeUndefined();
    expect(under('-work-app/974c16ed/other/x.txt')).toBeUndefined();
    expect(under('-work-app/974c16ed/tool-results/sub/x.txt')).toBeUndefined();
    expect(under('-work-app/974c16ed/tool-results/.hidden')).toBeUndefined();
    expect(
      hostOutputPathOf(`${projects}/-work-app/../../x/s/tool-results/y.txt`, [projects]),
    ).toBeUndefined();
    expect(hostOutputPathOf('breu3hp1f.txt', [projects])).toBeUndefined();
    expect(hostOutputPathOf(persisted, undefined)).toBeUndefined();
  });
});

describe('read_tool_output on a Claude Code persisted output', () => {
  it('reads the lines of the file its <persisted-output> preview names', async () => {
    const result = await readToolOutput({ file: persisted, offset: 3500, limit: 3 }, access);
    expect(result.text).toContain('103499\nneedle: ECONNRESET in the persisted output\n103501');
    expect(result.filePath).toBe(persisted);
  });

  it('refuses a link, a hard link and a linked folder under the root, and any path without roots', async () => {
    const other = path.join(projects, '-work-app', 'aaaa', 'tool-results');
    for (const file of [
      path.join(other, 'link.txt'),
      path.join(other, 'hard.txt'),
      path.join(projects, '-work-app', 'linked', 'tool-results', 'x.txt'),
    ]) {
      await expect(readToolOutput({ file }, access)).rejects.toMatchObject({ code: 'OUTSIDE' });
    }
    const withoutRoots = { ...access, hostOutputRoots: undefined };
    await expect(readToolOutput({ file: persisted }, withoutRoots)).rejects.toMatchObject({
      code: 'OUTSIDE',
    });
  });

  it('leaves the host folder untouched (read, never marked as used)', async () => {
    const folder = path.dirname(persisted);
    const old = new Date(Date.UTC(2025, 0, 1));
    fs.utimesSync(folder, old, old);
    await readToolOutput({ file: persisted, limit: 1 }, access);
    expect(fs.statSync(folder).mtimeMs).toBe(old.getTime());
  });
});

describe('search_tool_outputs over Claude Code persisted outputs', () => {
  it('finds a line only the persisted output holds, named by its path; nothing outside', async () => {
    const result = await searchToolOutputs({ query: 'ECONNRESET' }, access);
    expect(result.hits.map((hit) => [hit.file, hit.line])).toEqual([[persisted, 3501]]);
    expect(result.text).not.toContain('secret');
    expect(result.text).not.toContain('outside');
    expect(result.text).not.toContain('transcript');
  });

  it('lists a bounded number of directory entries', async () => {
    expect((await listHostOutputs([projects])).map((output) => output.name)).toContain(persisted);
    // Three entries reach no tool-results file: the project, a session and one more.
    expect(await listHostOutputs([projects], 3)).toEqual([]);
  });
});
