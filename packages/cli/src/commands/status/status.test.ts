/**
 * `toolmask status`: a running standalone gateway's figures since it started (the same words as a
 * launcher's summary), its upstreams and its dashboard; `--json`; exit 1 with a clear line when
 * no gateway runs for the state folder; exit 2 for bad usage.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listenGateway } from '@toolmask/gateway';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { geminiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import { runCli } from '../../program.js';

const cleanups = cleanUpAfterEach();

async function run(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { PATH: process.env['PATH'] ?? '', ...env },
    cwd: os.tmpdir(),
  });
  return { code, stdout, stderr };
}

async function stateDir() {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-status-'));
  cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
  const settingsFile = path.join(root, 'settings.json');
  await fs.writeFile(settingsFile, '{}');
  return { stateDir: path.join(root, 'state'), settingsFile };
}

describe('toolmask status', () => {
  it("prints a running gateway's figures since it started", async () => {
    const paths = await stateDir();
    const upstream = await startFakeUpstream(async () =>
      geminiAnswer([{ text: 'hi' }], { prompt: 2_000, cached: 1_500 }),
    );
    cleanups.push(() => upstream.close());
    const gateway = await listenGateway({
      port: 0,
      stateDir: paths.stateDir,
      settingsFile: paths.settingsFile,
      upstreams: { gemini: upstream.url },
    });
    cleanups.push(() => gateway.close());
    for (const text of ['one', 'two']) {
      const answer = await fetch(
        `${gateway.url}/gemini/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }] }),
        },
      );
      await answer.text();
    }
    const result = await run(['status', '--state-dir', paths.stateDir]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(`^gateway {4}${gateway.url} \\(pid ${process.pid}, version \\S+, up \\d+s\\)$`),
    );
    expect(lines[1]).toBe(
      `upstreams  gemini ${upstream.url} (the others: the public endpoints); no OpenAI upstream: codex, qwen and opencode need one (\`toolmask gateway --openai-upstream URL\`)`,
    );
    expect(lines[2]).toBe(
      "since it started: 2 requests, 0 outputs masked, billed the same as without masking, cache hits 75% of 4,000 prompt tokens (provider's count)",
    );
    expect(lines[3]).toBe(`dashboard  ${gateway.dashboardUrl}`);
    // Started with --settings: that file, for every client's requests.
    expect(lines.at(-1)).toBe(
      `  the gateway running here reads ${paths.settingsFile} for every client (--settings)`,
    );

    const json = await run(['status', '--state-dir', paths.stateDir, '--json']);
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as {
      sinceStart: { requests: number; cachedTokens: number };
    };
    expect(parsed.sinceStart).toMatchObject({ requests: 2, cachedTokens: 3_000 });
  });

  it('no gateway running: exit 1, one clear line; bad usage: exit 2', async () => {
    const paths = await stateDir();
    const result = await run(['status', '--state-dir', paths.stateDir]);
    expect(result.code).toBe(1);
    // Only the masking settings, said with or without a gateway.
    expect(result.stdout).toMatch(/^masking settings, first that holds some: /);
    expect(result.stderr).toContain(`toolmask: no gateway is running for ${paths.stateDir}`);
    expect((await run(['status', '--no-such-option'])).code).toBe(2);
  });
});

describe("toolmask status during a launcher's run (issue 35, item 4)", () => {
  it("lists a launcher's own gateway with its dashboard, and forgets it once it stops", async () => {
    const paths = await stateDir();
    const own = await listenGateway({
      port: 0,
      stateDir: paths.stateDir,
      settingsFile: paths.settingsFile,
      announce: false,
      launchOf: 'claude',
      retentionDays: 0,
    });
    let closed = false;
    cleanups.push(async () => {
      if (!closed) await own.close();
    });
    const during = await run(['status', '--state-dir', paths.stateDir]);
    expect(during.code, during.stderr).toBe(0);
    expect(during.stdout).toContain(
      `launch     toolmask claude's own gateway ${own.url} (pid ${process.pid}`,
    );
    expect(during.stdout).toContain(`dashboard  ${own.dashboardUrl}`);
    // The run's figures so far, as its exit line will say them (issue 35, the first hour).
    expect(during.stdout).toContain('\nso far: no model request went through the gateway\n');
    const json = await run(['status', '--state-dir', paths.stateDir, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      launches: [{ client: 'claude', url: own.url, pid: process.pid }],
    });
    await own.close();
    closed = true;
    const after = await run(['status', '--state-dir', paths.stateDir]);
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('no gateway is running');
  });
});

describe('toolmask status: which masking settings file applies to each client (issue 35, item 10)', () => {
  it('prints the rule, and for each client the files there and the one that wins', async () => {
    const paths = await stateDir();
    const home = path.join(path.dirname(paths.stateDir), 'home');
    const gemini = path.join(home, '.gemini', 'settings.json');
    const claude = path.join(home, '.claude', 'toolmask.json');
    const codexHome = path.join(home, 'codex-home');
    await fs.mkdir(path.dirname(gemini), { recursive: true });
    await fs.mkdir(path.dirname(claude), { recursive: true });
    await fs.writeFile(gemini, JSON.stringify({ experimental: { toolOutputMasking: {} } }));
    await fs.writeFile(claude, '{ "toolProtectionThreshold": 1000 }');
    const env = { HOME: home, GEMINI_CLI_HOME: home, CODEX_HOME: codexHome };

    const result = await run(['status', '--state-dir', paths.stateDir], env);
    expect(result.code).toBe(1); // no gateway runs
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      "masking settings, first that holds some: --masking-settings FILE (toolmask gateway: --settings FILE) > the client's own file (a toolmask.json beside its config; qwen: ~/.qwen/settings.json) > ~/.gemini/settings.json (its experimental.toolOutputMasking block) > the defaults",
      `  gemini    ${gemini} applies (files there: ${gemini})`,
      `  qwen      ${gemini} applies (files there: ${gemini})`,
      `  claude    ${claude} applies (files there: ${claude}, ${gemini})`,
      `  codex     ${gemini} applies (files there: ${gemini})`,
      `  opencode  ${gemini} applies (files there: ${gemini})`,
    ]);

    await fs.rm(gemini);
    const json = await run(['status', '--state-dir', paths.stateDir, '--json'], env);
    expect(JSON.parse(json.stdout)).toEqual({
      maskingSettings: {
        rule: expect.stringContaining("the client's own file"),
        clients: [
          { client: 'gemini', files: [], applies: 'defaults' },
          { client: 'qwen', files: [], applies: 'defaults' },
          { client: 'claude', files: [claude], applies: claude },
          { client: 'codex', files: [], applies: 'defaults' },
          { client: 'opencode', files: [], applies: 'defaults' },
        ],
      },
    });
  });
  it('says the defaults apply, and a file a launch refuses as refused, with why (issue 35)', async () => {
    const paths = await stateDir();
    const home = path.join(path.dirname(paths.stateDir), 'home');
    const claude = path.join(home, '.claude', 'toolmask.json');
    await fs.mkdir(path.dirname(claude), { recursive: true });
    await fs.writeFile(claude, '{ "toolProtectionThreshold": "50k" }');
    const env = { HOME: home, GEMINI_CLI_HOME: home, CODEX_HOME: path.join(home, 'codex') };

    const result = await run(['status', '--state-dir', paths.stateDir], env);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[1]).toBe('  gemini    the defaults apply (files there: none)');
    expect(lines.slice(3, 6)).toEqual([
      `  claude    ${claude} is refused: toolmask claude and toolmask gateway stop with exit 2 until it is fixed (files there: ${claude})`,
      `            Invalid setting toolProtectionThreshold in ${claude}: expected non-negative integer, got the string "50k".`,
      '  codex     the defaults apply (files there: none)',
    ]);
    // The launcher says the same.
    const launch = await run(['claude', '--state-dir', paths.stateDir, '-p', 'hi'], env);
    expect(launch.code).toBe(2);
    expect(launch.stderr).toContain(lines[4]!.trim());

    const json = await run(['status', '--state-dir', paths.stateDir, '--json'], env);
    const clients = (JSON.parse(json.stdout) as { maskingSettings: { clients: unknown[] } })
      .maskingSettings.clients;
    expect(clients[2]).toEqual({
      client: 'claude',
      files: [claude],
      applies: claude,
      refused: [
        `Invalid setting toolProtectionThreshold in ${claude}: expected non-negative integer, got the string "50k".`,
      ],
    });
  });
});
