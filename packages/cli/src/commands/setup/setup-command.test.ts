import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { createServer } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { listenGateway } from '@toolmask/gateway';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../test-data/run-cli.js';

let root: string | undefined;
afterEach(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
  root = undefined;
});

async function folders() {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-setup-command-'));
  const home = path.join(root, 'home');
  await fs.mkdir(path.join(home, '.gemini'), { recursive: true });
  const stateDir = path.join(root, 'state');
  // An API key, so that setup writes GOOGLE_GEMINI_BASE_URL too.
  const env = { GEMINI_CLI_HOME: home, HOME: home, GEMINI_API_KEY: 'fake-key' };
  return { envFile: path.join(home, '.gemini', '.env'), stateDir, env };
}

/** A loopback port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('toolmask setup: which gateway address it writes', () => {
  it("writes the running gateway's address from its gateway.json, whatever its port, and says it answers", async () => {
    const { envFile, stateDir, env } = await folders();
    const gateway = await listenGateway({ port: 0, stateDir, retentionDays: 0 });
    try {
      const run = await runCliCaptured(['setup', 'gemini', '--state-dir', stateDir], { env });
      expect(run.code, run.stderr).toBe(0);
      expect(await fs.readFile(envFile, 'utf8')).toContain(
        `GOOGLE_GEMINI_BASE_URL=${gateway.url}/gemini\n`,
      );
      expect(run.stdout).toContain(
        `Gateway address written: ${gateway.url} (the gateway running for ${stateDir}, pid ${process.pid}, from its gateway.json).\nA toolmask gateway answers there now.\n`,
      );
      expect(run.stdout).toContain(`It listens on port ${gateway.port}: start it again with`);
      expect(run.stdout).not.toContain(':8787');
    } finally {
      await gateway.close();
    }
  });

  it('says so when nothing answers at the address it wrote, with the command to start one there', async () => {
    const { envFile, stateDir, env } = await folders();
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const run = await runCliCaptured(
      ['setup', 'gemini', '--state-dir', stateDir, '--gateway', `${url}/`],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(await fs.readFile(envFile, 'utf8')).toContain(`CODE_ASSIST_ENDPOINT=${url}/code-assist`);
    expect(run.stdout).toContain(`Gateway address written: ${url} (--gateway).\n`);
    expect(run.stdout).toContain(
      `No gateway answers there now (ECONNREFUSED): start one before you run the client, \`toolmask gateway --port ${port}\``,
    );
  });

  it('with no gateway running and no --gateway: the default address, and why', async () => {
    const { stateDir, env } = await folders();
    const run = await runCliCaptured(['setup', 'qwen', '--state-dir', stateDir], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      `Gateway address written: http://127.0.0.1:8787 (the default: no gateway is running for ${stateDir}).\n`,
    );
  });

  it('a --gateway that is not an http URL is bad usage, and nothing is written', async () => {
    const { envFile, stateDir, env } = await folders();
    const run = await runCliCaptured(
      ['setup', 'gemini', '--state-dir', stateDir, '--gateway', '127.0.0.1:8787'],
      { env },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--gateway "127.0.0.1:8787" is not an http:// or https:// URL');
    await expect(fs.stat(envFile)).rejects.toThrow();
  });

  it('claude: the running gateway sends the Anthropic API elsewhere than claude does: exit 2, the command to run, nothing written', async () => {
    const { stateDir, env } = await folders();
    const home = env.HOME;
    const gateway = await listenGateway({ port: 0, stateDir, retentionDays: 0 });
    try {
      const run = await runCliCaptured(['setup', 'claude', '--state-dir', stateDir], {
        env: { ...env, ANTHROPIC_BASE_URL: 'https://proxy.example' },
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        `claude sends its requests to https://proxy.example (ANTHROPIC_BASE_URL in the environment), but the gateway at ${gateway.url} sends the Anthropic API to https://api.anthropic.com; nothing was changed. Stop it (\`kill ${process.pid}\`), start it again with \`toolmask gateway --port ${new URL(gateway.url).port} --state-dir ${stateDir} --anthropic-upstream https://proxy.example\`, then run \`toolmask setup claude\` again`,
      );
      await expect(fs.stat(path.join(home, '.claude.json'))).rejects.toThrow();
      await expect(fs.stat(path.join(home, '.claude'))).rejects.toThrow();

      // Its own upstream: written, exit 0; --undo exit 0, then nothing to undo: exit 0 too.
      const ok = await runCliCaptured(['setup', 'claude', '--state-dir', stateDir], { env });
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toContain(`env.ANTHROPIC_BASE_URL (unset) → "${gateway.url}/anthropic"`);
      expect(ok.stdout).toContain('A toolmask gateway answers there now.');
      const undo = await runCliCaptured(['setup', 'claude', '--state-dir', stateDir, '--undo'], {
        env,
      });
      expect(undo.code, undo.stderr).toBe(0);
      await expect(fs.stat(path.join(home, '.claude.json'))).rejects.toThrow();
      const again = await runCliCaptured(['setup', 'claude', '--state-dir', stateDir, '--undo'], {
        env,
      });
      expect(again.code).toBe(0);
      expect(again.stdout).toBe('toolmask is not set up for claude (nothing to undo)\n');
      expect(again.stderr).toBe('');
    } finally {
      await gateway.close();
    }
  });

  it('codex after a plain `toolmask gateway`: status and setup agree there is no OpenAI upstream, and setup says the steps that work (issue 35)', async () => {
    const { stateDir, env } = await folders();
    const gateway = await listenGateway({ port: 0, stateDir, retentionDays: 0 });
    try {
      const status = await runCliCaptured(['status', '--state-dir', stateDir], { env });
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toContain(
        'upstreams  the public endpoints (no --upstream given); no OpenAI upstream: codex, qwen and opencode need one (`toolmask gateway --openai-upstream URL`)\n',
      );
      const run = await runCliCaptured(['setup', 'codex', '--state-dir', stateDir], { env });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        `codex sends its requests to https://api.openai.com/v1 (OpenAI's own provider), but the gateway at ${gateway.url} has no OpenAI upstream (as \`toolmask status\` says); nothing was changed. Stop it (\`kill ${process.pid}\`), start it again with \`toolmask gateway --port ${gateway.port} --state-dir ${stateDir} --openai-upstream https://api.openai.com/v1\`, then run \`toolmask setup codex\` again`,
      );
      await expect(fs.stat(path.join(env.HOME, '.codex'))).rejects.toThrow();
    } finally {
      await gateway.close();
    }
  });

  it('claude --undo that cannot put back one file: the others put back, that one on stderr with why, exit 1', async () => {
    const { stateDir, env } = await folders();
    const home = env.HOME;
    const url = `http://127.0.0.1:${await closedPort()}`;
    const ok = await runCliCaptured(
      ['setup', 'claude', '--state-dir', stateDir, '--gateway', url],
      { env },
    );
    expect(ok.code, ok.stderr).toBe(0);
    const settingsFile = path.join(home, '.claude', 'settings.json');
    await fs.rm(settingsFile);
    execFileSync('mkfifo', [settingsFile]);
    const undo = await runCliCaptured(['setup', 'claude', '--state-dir', stateDir, '--undo'], {
      env,
    });
    expect(undo.code).toBe(1);
    expect(undo.stdout).toContain(
      `${path.join(home, '.claude.json')}: removed (setup had created it)`,
    );
    expect(undo.stderr).toContain(`${settingsFile}: it is not a regular file`);
    expect(undo.stderr).toContain('`toolmask setup claude --undo` again');
    await expect(fs.stat(path.join(home, '.claude.json'))).rejects.toThrow();
  });

  it('an unknown client is bad usage', async () => {
    const { stateDir, env } = await folders();
    const run = await runCliCaptured(['setup', 'cursor', '--state-dir', stateDir], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('expected gemini, qwen, claude, codex or opencode.');
  });
});
