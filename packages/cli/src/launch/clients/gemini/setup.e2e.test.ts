/**
 * `toolmask setup gemini` with the real `gemini` binary (npm @google/gemini-cli 0.61.0), headless:
 * a person with an API key in the environment and no auth type chosen (gemini's own default for
 * such a person) runs plain `gemini` after setup, through a running gateway, against a loopback
 * fake of the Gemini API. With no auth type chosen, `GOOGLE_GEMINI_BASE_URL` alone makes gemini
 * pick an auth type its CLI refuses; setup chooses the API key as well.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { listenGateway } from '@toolmask/gateway';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { geminiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import { setUpClient, undoClient } from '../../../test-data/client-setup.js';
import { geminiClient } from './index.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../..');
const GEMINI = path.join(repo, 'node_modules/@google/gemini-cli/bundle/gemini.js');

const cleanups = cleanUpAfterEach();

function runGemini(env: Record<string, string>, cwd: string) {
  const child = spawn(process.execPath, [GEMINI, '-m', 'gemini-2.5-flash', '-p', 'say hello'], {
    env,
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

describe('toolmask setup gemini with the real gemini binary', () => {
  it('an API key in the environment and no auth type chosen: plain gemini works through the gateway', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-setup-e2e-'));
    cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
    const home = path.join(root, 'home');
    const project = path.join(root, 'project');
    const stateDir = path.join(root, 'state');
    await fs.mkdir(path.join(home, '.gemini'), { recursive: true });
    await fs.mkdir(project);
    await fs.mkdir(path.join(root, 'tmp'));
    await fs.writeFile(
      path.join(home, '.gemini', 'settings.json'),
      '{\n  "privacy": { "usageStatisticsEnabled": false },\n  "general": { "maxAttempts": 1 }\n}\n',
    );
    const upstream = await startFakeUpstream((request) =>
      request.path.endsWith(':streamGenerateContent')
        ? geminiAnswer([{ text: 'Hello through the gateway.' }])
        : { json: {} },
    );
    cleanups.push(() => upstream.close());
    const settingsFile = path.join(root, 'masking-settings.json');
    await fs.writeFile(settingsFile, '{}');
    const gateway = await listenGateway({
      port: 0,
      stateDir,
      settingsFile,
      upstreams: { gemini: upstream.url },
    });
    cleanups.push(() => gateway.close());
    const env = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: home,
      TMPDIR: path.join(root, 'tmp'),
      TERM: 'dumb',
      NO_COLOR: '1',
      NO_PROXY: '127.0.0.1,localhost',
      GEMINI_API_KEY: 'fake-gemini-key',
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      GEMINI_CLI_NO_RELAUNCH: 'true',
    };
    // Setup finds gemini's folder as gemini does: in GEMINI_CLI_HOME, here the same home.
    await setUpClient(geminiClient, {
      gatewayUrl: gateway.url,
      stateDir,
      env: { ...env, GEMINI_CLI_HOME: home },
    });

    const result = await runGemini(env, project);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Hello through the gateway.');
    const model = upstream.matching(/:streamGenerateContent$/);
    expect(model.length).toBe(1);
    expect(model[0]!.headers['x-goog-api-key']).toBe('fake-gemini-key');
    // It went through the gateway, which records every model request.
    expect(await fs.readdir(path.join(stateDir, 'usage'))).toHaveLength(1);

    await undoClient(geminiClient, stateDir);
    expect(
      JSON.parse(await fs.readFile(path.join(home, '.gemini', 'settings.json'), 'utf8')),
    ).toEqual({ privacy: { usageStatisticsEnabled: false }, general: { maxAttempts: 1 } });
    // Nothing of setup's left behind (issue 24): its backups went with the undo.
    expect(
      (await fs.readdir(path.join(home, '.gemini'))).filter((name) =>
        name.endsWith('.toolmask-backup'),
      ),
    ).toEqual([]);
  }, 120_000);
});
