import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { Storage } from '@google/gemini-cli-core';
import {
  findProjectTempDir,
  geminiDir,
  installationIdPath,
  userSettingsPath,
  workspaceSettingsPath,
} from './paths.js';

describe('gemini-cli paths', () => {
  let dir: string;
  let savedHome: string | undefined;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-paths-'));
    savedHome = process.env['GEMINI_CLI_HOME'];
  });

  afterEach(() => {
    if (savedHome === undefined) delete process.env['GEMINI_CLI_HOME'];
    else process.env['GEMINI_CLI_HOME'] = savedHome;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('honour GEMINI_CLI_HOME, read at call time, exactly as core resolves them', () => {
    process.env['GEMINI_CLI_HOME'] = dir;
    expect(geminiDir()).toBe(path.join(dir, '.gemini'));
    expect(userSettingsPath()).toBe(Storage.getGlobalSettingsPath());
    expect(installationIdPath()).toBe(Storage.getInstallationIdPath());
    delete process.env['GEMINI_CLI_HOME'];
    expect(userSettingsPath()).toBe(Storage.getGlobalSettingsPath());
    expect(workspaceSettingsPath('/p')).toBe(path.join('/p', '.gemini', 'settings.json'));
  });

  test('an explicit environment wins over the process one', () => {
    expect(geminiDir({ GEMINI_CLI_HOME: '/elsewhere' })).toBe('/elsewhere/.gemini');
  });

  test('find a project temp dir by registry, by hash, or given directly', async () => {
    const env = { GEMINI_CLI_HOME: dir };
    const project = path.join(dir, 'work', 'app');
    expect(await findProjectTempDir(project, env)).toBeUndefined();

    const hashed = path.join(
      dir,
      '.gemini',
      'tmp',
      createHash('sha256').update(project).digest('hex'),
    );
    fs.mkdirSync(hashed, { recursive: true });
    expect(await findProjectTempDir(project, env)).toEqual({ dir: hashed, source: 'project hash' });

    const short = path.join(dir, '.gemini', 'tmp', 'app');
    fs.mkdirSync(short, { recursive: true });
    fs.writeFileSync(
      path.join(dir, '.gemini', 'projects.json'),
      JSON.stringify({ projects: { [project]: 'app' } }),
    );
    expect(await findProjectTempDir(project, env)).toEqual({
      dir: short,
      source: 'project registry',
    });

    fs.mkdirSync(path.join(short, 'tool-outputs'));
    expect(await findProjectTempDir(short, env)).toEqual({ dir: short, source: 'temp dir' });
    expect(await findProjectTempDir(path.join(short, 'tool-outputs'), env)).toEqual({
      dir: short,
      source: 'tool-outputs folder',
    });
  });
});
