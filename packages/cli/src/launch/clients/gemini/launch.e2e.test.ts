/**
 * `toolmask gemini` end to end with the real `gemini` binary (npm @google/gemini-cli 0.61.0),
 * headless, in a temporary home and workspace, against a scripted loopback fake of the Gemini API:
 * the model runs a bulky shell command several times, reads one masked output back through the
 * gateway's MCP tool, then answers. Once with the gateway `toolmask gemini` starts itself; once
 * with a separate `toolmask gateway` that is restarted in the middle of the session.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseMaskedSnippet } from '@toolmask/core';
import { describe, expect, it } from 'vitest';
import {
  PrefixCache,
  geminiAnswer,
  startFakeUpstream,
  type FakeUpstream,
} from '@toolmask/test-support/fake-upstream';
import { FINAL_PREFIX, SEARCHED_LINE, nextStep } from '@toolmask/test-support/scripted-agent';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../..');
const CLI = path.join(repo, 'packages/cli/dist/index.js');
const GEMINI = path.join(repo, 'node_modules/@google/gemini-cli/bundle/gemini.js');
const SHELL_STEPS = 7;
const READ_TOOL = 'mcp_toolmask_read_tool_output';
const SEARCH_TOOL = 'mcp_toolmask_search_tool_outputs';

interface Part {
  text?: string;
  functionCall?: { id?: string; name: string; args: Record<string, unknown> };
  functionResponse?: { id?: string; name: string; response: { output?: string; error?: string } };
}
interface Content {
  role: string;
  parts: Part[];
}

const cleanups = cleanUpAfterEach();

/** As root, the unprivileged user a run can switch to; undefined otherwise. */
const NOBODY = process.getuid?.() === 0 ? 65534 : undefined;

async function chownTree(target: string, uid: number): Promise<void> {
  await fs.chown(target, uid, uid);
  for (const entry of await fs.readdir(target, { withFileTypes: true })) {
    const inner = path.join(target, entry.name);
    if (entry.isDirectory()) await chownTree(inner, uid);
    else await fs.chown(inner, uid, uid);
  }
}

async function workspace() {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-gemini-e2e-'));
  cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
  const home = path.join(root, 'home');
  const project = path.join(root, 'project');
  const state = path.join(root, 'state');
  await fs.mkdir(path.join(home, '.gemini'), { recursive: true });
  await fs.mkdir(project);
  await fs.mkdir(path.join(root, 'tmp'));
  // No auth type chosen: `toolmask gemini` chooses the API key (GEMINI_API_KEY is set).
  await fs.writeFile(
    path.join(home, '.gemini', 'settings.json'),
    '{\n  // a comment the launcher must keep\n  "privacy": { "usageStatisticsEnabled": false },\n  "general": { "maxAttempts": 5 }\n}\n',
  );
  const maskingSettings = path.join(root, 'masking-settings.json');
  await fs.writeFile(
    maskingSettings,
    JSON.stringify({
      experimental: {
        toolOutputMasking: {
          // A short session: the floor warm rule masks in it (the rule is not the subject).
          toolProtectionThreshold: 25_000,
          minPrunableTokensThreshold: 15_000,
          warmRule: 'floor',
        },
      },
    }),
  );
  return { root, home, project, state, maskingSettings };
}

/** The line of the exit summary with the run's figures. */
function summaryOf(stderr: string): string | undefined {
  return stderr.split('\n').find((line) => line.startsWith('toolmask: this run: '));
}

function contentsOf(body: unknown): Content[] {
  return ((body as { contents?: Content[] })?.contents ?? []) as Content[];
}

function responses(contents: Content[]): NonNullable<Part['functionResponse']>[] {
  return contents.flatMap((content) =>
    content.parts.flatMap((part) => (part.functionResponse ? [part.functionResponse] : [])),
  );
}

/** The scripted model behind the fake Gemini API. */
async function scriptedGemini(onRequest?: (index: number) => Promise<void>): Promise<FakeUpstream> {
  const cache = new PrefixCache();
  let modelRequests = 0;
  const upstream = await startFakeUpstream(async (request) => {
    if (!request.path.endsWith(':streamGenerateContent')) return { json: {} };
    const index = modelRequests++;
    await onRequest?.(index);
    const contents = contentsOf(request.json);
    const outputs = responses(contents);
    const shell = outputs.filter((response) => response.name === 'run_shell_command');
    const readBacks = outputs.filter((response) => response.name === READ_TOOL);
    const step = nextStep({
      shellOutputs: shell.length,
      readBacks: readBacks.length,
      searches: outputs.filter((response) => response.name === SEARCH_TOOL).length,
      shellSteps: SHELL_STEPS,
      outputs: shell.map((response) => response.response.output ?? ''),
      ...(readBacks[0]?.response.output !== undefined
        ? { readBackOutput: readBacks[0].response.output }
        : {}),
    });
    const usage = cache.usage('conversation', contents);
    if (step.kind === 'shell') {
      return geminiAnswer(
        [
          {
            functionCall: {
              name: 'run_shell_command',
              args: { command: step.command, description: `step ${step.step}` },
            },
          },
        ],
        usage,
      );
    }
    if (step.kind === 'read-back') {
      return geminiAnswer(
        [{ functionCall: { name: READ_TOOL, args: { file: step.file, offset: 1, limit: 5 } } }],
        usage,
      );
    }
    if (step.kind === 'search') {
      const args = { query: step.query, regex: step.regex };
      return geminiAnswer([{ functionCall: { name: SEARCH_TOOL, args } }], usage);
    }
    return geminiAnswer([{ text: step.text }], usage);
  });
  cleanups.push(() => upstream.close());
  return upstream;
}

function run(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
  uid?: number,
): { child: ChildProcess; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(command, args, {
    env,
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(uid !== undefined ? { uid, gid: uid } : {}),
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done };
}

function baseEnv(
  paths: Awaited<ReturnType<typeof workspace>>,
  upstream: FakeUpstream,
): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: paths.home,
    TMPDIR: path.join(paths.root, 'tmp'),
    TERM: 'dumb',
    NO_COLOR: '1',
    GEMINI_API_KEY: 'fake-gemini-key',
    GOOGLE_GEMINI_BASE_URL: upstream.url,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    GEMINI_CLI_NO_RELAUNCH: 'true',
  };
}

const GEMINI_ARGS = [
  '-m',
  'gemini-2.5-flash',
  '--yolo',
  '-p',
  'Run the build steps, then summarize.',
];

/** Everything the issue asks of the requests the upstream saw. */
/** `toolmask gemini` with the masking settings of the workspace and the headless arguments. */
function launchArgs(paths: { state: string; maskingSettings: string }): string[] {
  return [
    CLI,
    'gemini',
    '--gemini-bin',
    GEMINI,
    '--state-dir',
    paths.state,
    '--masking-settings',
    paths.maskingSettings,
    ...GEMINI_ARGS,
  ];
}

async function checkSession(upstream: FakeUpstream, stdout: string) {
  const requests = upstream
    .matching(/:streamGenerateContent$/)
    .map((request) => contentsOf(request.json));
  expect(requests.length).toBe(SHELL_STEPS + 3);
  // The search over MCP found the line only the first (masked) output holds.
  const search = responses(requests.at(-1)!).find((response) => response.name === SEARCH_TOOL);
  expect(search?.response.output).toMatch(
    /search_tool_outputs: 1 matching line in 1 of \d+ saved outputs/,
  );
  expect(search?.response.output).toContain(`:${SEARCHED_LINE}\n`);
  // Every functionCall has its functionResponse, with the same id, in the next entry.
  for (const contents of requests) {
    contents.forEach((content, index) => {
      const calls = content.parts
        .filter((part) => part.functionCall)
        .map((part) => part.functionCall?.id);
      if (calls.length === 0) return;
      const answered = (contents[index + 1]?.parts ?? []).map((part) => part.functionResponse?.id);
      if (index + 1 < contents.length) expect(answered).toEqual(calls);
    });
  }
  // Old shell outputs went as snippets, the newest whole.
  const last = responses(requests[SHELL_STEPS]!).filter(
    (response) => response.name === 'run_shell_command',
  );
  const masked = last.filter((response) => parseMaskedSnippet(response.response.output ?? ''));
  expect(masked.length).toBeGreaterThan(1);
  expect(parseMaskedSnippet(last.at(-1)!.response.output ?? '')).toBeUndefined();
  expect(last.at(-1)!.response.output).toContain('row 60001');
  // Once masked, an output is the same bytes in every later request.
  const seen = new Map<string, string>();
  for (const contents of requests) {
    for (const response of responses(contents)) {
      const output = response.response.output ?? '';
      if (!parseMaskedSnippet(output)) continue;
      const before = seen.get(response.id ?? '');
      if (before === undefined) seen.set(response.id ?? '', output);
      else expect(output).toBe(before);
    }
  }
  // The read-back over MCP returned the saved bytes.
  const readBack = responses(requests.at(-1)!).find((response) => response.name === READ_TOOL);
  expect(readBack).toBeDefined();
  const file = parseMaskedSnippet(masked[0]!.response.output ?? '')!.filePath;
  const saved = (await fs.readFile(file, 'utf8')).split('\n').slice(0, 5);
  // Saved without gemini's <untrusted_context> line: line N is the command's (issue 35).
  expect(saved[0]).toMatch(/^Output: /);
  const returned = (readBack!.response.output ?? '').split('\n');
  for (const line of saved) expect(returned).toContain(line);
  // gemini printed the final answer, which quotes the read-back.
  expect(stdout).toContain(
    `${FINAL_PREFIX} read back "${saved.find((line) => line.startsWith('row '))}"`,
  );
}

describe('toolmask gemini with the real gemini binary', () => {
  it('masks, keeps each masked output stable, reads back over MCP, exits 0 with the answer', async () => {
    const paths = await workspace();
    const upstream = await scriptedGemini();
    const { done } = run(
      process.execPath,
      launchArgs(paths),
      baseEnv(paths, upstream),
      paths.project,
    );
    const result = await done;
    expect(result.code, result.stderr).toBe(0);
    await checkSession(upstream, result.stdout);
    // The person's settings file is as it was (comment included); of the overlay, only the link
    // that keeps the paths gemini printed valid is left (issue 24, item 2).
    expect(await fs.readFile(path.join(paths.home, '.gemini', 'settings.json'), 'utf8')).toContain(
      '// a comment the launcher must keep',
    );
    const views = await fs.readdir(path.join(paths.state, 'launch'));
    expect(views).toHaveLength(1);
    const view = path.join(paths.state, 'launch', views[0]!, '.gemini');
    expect(await fs.realpath(view)).toBe(await fs.realpath(path.join(paths.home, '.gemini')));
    // When gemini exits, the run's figures (issue 24): all its requests, what was masked.
    const summary = summaryOf(result.stderr);
    expect(summary).toMatch(
      new RegExp(
        `^toolmask: this run: ${SHELL_STEPS + 3} requests, [1-9]\\d* outputs masked, (?:billed \\d+(?:\\.\\d)?% (?:less|more) than without masking \\([\\d,]+ tokens(?:, \\$[\\d.]+|; no price for the model of [\\d,]+ requests?)\\)|billed the same as without masking|net billed not measured \\([a-z ]+\\))(?: over the [\\d,]+ requests with cache figures)?, cache hits \\d+% of [\\d,]+ prompt tokens \\(provider's count\\)$`,
      ),
    );
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(
      "toolmask: dashboard: this run's gateway stopped with it; `toolmask gateway --state-dir " +
        paths.state +
        '` shows its sessions',
    );
  }, 180_000);

  // gemini 0.61.0 reads an extra settings layer only from root-owned files: a normal user's
  // launcher cannot add one, and must still get the MCP server in (the one-run home view).
  it.runIf(NOBODY !== undefined)(
    'works the same for an unprivileged user',
    async () => {
      const paths = await workspace();
      await fs.chmod(paths.root, 0o755);
      for (const folder of [paths.home, paths.project, path.join(paths.root, 'tmp')]) {
        await chownTree(folder, NOBODY!);
      }
      await fs.mkdir(paths.state);
      await fs.chown(paths.state, NOBODY!, NOBODY!);
      await fs.chmod(paths.maskingSettings, 0o644);
      const upstream = await scriptedGemini();
      const { done } = run(
        process.execPath,
        launchArgs(paths),
        baseEnv(paths, upstream),
        paths.project,
        NOBODY,
      );
      const result = await done;
      expect(result.code, result.stderr).toBe(0);
      await checkSession(upstream, result.stdout);
    },
    180_000,
  );

  it('a gateway restarted mid-session changes nothing the upstream sees', async () => {
    const paths = await workspace();
    let gateway: ReturnType<typeof run> | undefined;
    let port = 0;
    const startGateway = async () => {
      gateway = run(
        process.execPath,
        [
          CLI,
          'gateway',
          '--port',
          String(port),
          '--state-dir',
          paths.state,
          '--settings',
          paths.maskingSettings,
          '--upstream',
          upstreamUrl,
        ],
        { PATH: process.env['PATH'] ?? '', HOME: paths.home },
        paths.root,
      );
      const url = await new Promise<string>((resolve, reject) => {
        gateway!.child.stdout?.on('data', (chunk: Buffer) => {
          const match = /listening on (http:\/\/\S+)/.exec(chunk.toString());
          if (match) resolve(match[1]!);
        });
        gateway!.child.on('exit', (code) => reject(new Error(`gateway exited ${code}`)));
      });
      port = Number(new URL(url).port);
      return url;
    };
    let restarted = false;
    const upstream = await scriptedGemini(async (index) => {
      // Before answering request 4, restart the gateway: it finishes this request first.
      if (index !== 4 || restarted) return;
      restarted = true;
      const old = gateway!;
      setTimeout(() => {
        old.child.kill('SIGTERM');
        void old.done.then(async (exit) => {
          expect(exit.code).toBe(0);
          await startGateway();
        });
      }, 0);
    });
    const upstreamUrl = upstream.url;
    cleanups.push(async () => {
      gateway?.child.kill('SIGTERM');
      await gateway?.done;
    });
    const gatewayUrl = await startGateway();
    const env = baseEnv(paths, upstream);
    // gemini finds the gateway through the state folder's gateway.json and reuses it.
    const { done } = run(
      process.execPath,
      [CLI, 'gemini', '--gemini-bin', GEMINI, '--state-dir', paths.state, ...GEMINI_ARGS],
      env,
      paths.project,
    );
    const result = await done;
    expect(restarted).toBe(true);
    expect(result.code, result.stderr).toBe(0);
    // The banner names the upstream, as qwen's does (issue 24, item 3).
    expect(result.stderr).toContain(`→ ${upstreamUrl} through the gateway at ${gatewayUrl}`);
    await checkSession(upstream, result.stdout);
    // The figures count from the restart, and say so; the dashboard is the standalone gateway's.
    expect(summaryOf(result.stderr)).toMatch(/^toolmask: this run: \d+ requests/);
    expect(result.stderr).toContain('the gateway restarted during the run');
    expect(result.stderr).toContain(`toolmask: dashboard ${gatewayUrl}/?token=`);
  }, 180_000);
});
