/**
 * Runs the real `claude`, `codex` and `opencode` binaries headless, each in a fresh home against a
 * scripted loopback fake of its API, with a couple of real tool calls, and returns where each wrote
 * its session. The fixtures of the CLI's session readers (`packages/cli/src/input/`) were made from
 * what these runs wrote (trimmed and anonymised); the CLI's e2e tests replay fresh ones. A test
 * helper: it lives here, never in a published package.
 */
import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { anthropicAnswer, toolResultsOf } from '@toolmask/test-support/fake-anthropic';
import { opencodeOfflineEnv } from '@toolmask/test-support/opencode-env';
import { responsesAnswer, toolOutputsOf } from '@toolmask/test-support/fake-openai-responses';
import {
  PrefixCache,
  openAiAnswer,
  startFakeUpstream,
  type FakeUpstream,
  type RecordedUpstreamRequest,
} from '@toolmask/test-support/fake-upstream';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const BIN = path.join(repo, 'node_modules/.bin');
export const FINAL = 'All done: the numbers are printed.';

export interface RecordedRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Where the CLI keeps its sessions in the fresh home. */
  sessionsDir: string;
}

function run(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(path.join(BIN, command), args, {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const baseEnv = (home: string): Record<string, string> => ({
  PATH: `${BIN}${path.delimiter}${process.env['PATH'] ?? '/usr/bin:/bin'}`,
  HOME: home,
  NO_COLOR: '1',
});

export function binaryExists(command: string): boolean {
  return existsSync(path.join(BIN, command));
}

async function withUpstream<T>(
  respond: (request: RecordedUpstreamRequest) => ReturnType<typeof anthropicAnswer>,
  body: (upstream: FakeUpstream) => Promise<T>,
): Promise<T> {
  const upstream = await startFakeUpstream(respond);
  try {
    return await body(upstream);
  } finally {
    await upstream.close();
  }
}

/** Claude Code: two Bash calls in one answer, then a Read, then the final text. */
export async function recordClaude(root: string): Promise<RecordedRun> {
  const home = path.join(root, 'home');
  const project = path.join(root, 'project');
  await fs.mkdir(home, { recursive: true });
  await fs.mkdir(project, { recursive: true });
  await fs.writeFile(path.join(project, 'notes.txt'), 'alpha\nbeta\ngamma\n');
  const respond = (request: RecordedUpstreamRequest) => {
    const body = request.json as { tools?: Array<{ name: string }> };
    if (request.path !== '/v1/messages' || !body.tools?.some((tool) => tool.name === 'Bash')) {
      return anthropicAnswer([{ text: 'ok' }]);
    }
    const step = toolResultsOf(body).length;
    const usage = { input: 3, cacheRead: 9_000 * Math.min(step, 1) + 400 * step, cacheWrite: 900 };
    if (step === 0) {
      return anthropicAnswer(
        [
          { text: 'Let me print them.' },
          {
            toolUse: {
              id: 'toolu_01',
              name: 'Bash',
              input: { command: 'seq 1 5', description: 'Print 1 to 5' },
            },
          },
          {
            toolUse: {
              id: 'toolu_02',
              name: 'Bash',
              input: { command: 'echo hello', description: 'Say hello' },
            },
          },
        ],
        usage,
      );
    }
    if (step === 2) {
      const file = path.join(project, 'notes.txt');
      return anthropicAnswer(
        [{ toolUse: { id: 'toolu_03', name: 'Read', input: { file_path: file } } }],
        usage,
      );
    }
    return anthropicAnswer([{ text: FINAL }], usage);
  };
  return withUpstream(respond, async (upstream) => {
    const result = await run(
      'claude',
      [
        '-p',
        'Print the numbers one to five, say hello, and read notes.txt.',
        '--allowedTools',
        'Bash',
        'Read',
      ],
      {
        ...baseEnv(home),
        ANTHROPIC_BASE_URL: upstream.url,
        ANTHROPIC_API_KEY: 'x',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
      },
      project,
    );
    return { ...result, sessionsDir: path.join(home, '.claude', 'projects') };
  });
}

/** Codex: two shell calls, then the final text. */
export async function recordCodex(root: string): Promise<RecordedRun> {
  const home = path.join(root, 'home');
  await fs.mkdir(path.join(home, '.codex'), { recursive: true });
  const respond = (request: RecordedUpstreamRequest) => {
    if (request.path !== '/v1/responses') return { json: { object: 'list', data: [] } };
    const step = toolOutputsOf(request.json).length;
    const usage = { input: 6_000 + 300 * step, cached: step === 0 ? 0 : 5_800 + 250 * step };
    const call = (command: string) =>
      responsesAnswer(
        [
          {
            functionCall: {
              callId: `call_${step}`,
              name: 'exec_command',
              arguments: { cmd: command },
            },
          },
        ],
        usage,
      );
    if (step === 0) return call('seq 1 5');
    if (step === 1) return call('echo hello');
    return responsesAnswer([{ text: FINAL }], usage);
  };
  return withUpstream(respond, async (upstream) => {
    await fs.writeFile(
      path.join(home, '.codex', 'config.toml'),
      [
        'model = "gpt-5-codex"',
        'model_provider = "fake"',
        '[model_providers.fake]',
        'name = "fake"',
        `base_url = "${upstream.url}/v1"`,
        'env_key = "FAKE_KEY"',
        'wire_api = "responses"',
        '',
      ].join('\n'),
    );
    const result = await run(
      'codex',
      ['exec', '--skip-git-repo-check', 'Print the numbers one to five, then say hello.'],
      { ...baseEnv(home), FAKE_KEY: 'x' },
      home,
    );
    return { ...result, sessionsDir: path.join(home, '.codex', 'sessions') };
  });
}

type ChatMessage = { role: string; tool_calls?: unknown[] };

/** OpenCode: two bash calls, then the final text (its title request gets a title). */
export async function recordOpencode(root: string): Promise<RecordedRun> {
  const home = path.join(root, 'home');
  const project = path.join(root, 'project');
  await fs.mkdir(home, { recursive: true });
  await fs.mkdir(path.join(project, '.git'), { recursive: true });
  const cache = new PrefixCache();
  const respond = (request: RecordedUpstreamRequest) => {
    const body = (request.json ?? {}) as {
      messages?: ChatMessage[];
      tools?: Array<{ function?: { name?: string } }>;
    };
    const messages = body.messages ?? [];
    const main = (body.tools ?? []).some((tool) => tool.function?.name === 'bash');
    const usage = cache.usage(main ? 'main' : 'side', messages);
    if (!main) return openAiAnswer({ content: 'Numbers' }, usage);
    const step = messages.filter((message) => message.role === 'tool').length;
    const call = (command: string) =>
      openAiAnswer(
        {
          toolCalls: [
            {
              id: `call_${step}`,
              name: 'bash',
              arguments: JSON.stringify({ command, description: `step ${step}` }),
            },
          ],
        },
        usage,
      );
    if (step === 0) return call('seq 1 5');
    if (step === 1) return call('echo hello');
    return openAiAnswer({ content: FINAL }, usage);
  };
  return withUpstream(respond, async (upstream) => {
    await fs.writeFile(
      path.join(project, 'opencode.json'),
      JSON.stringify({
        provider: {
          fake: {
            npm: '@ai-sdk/openai-compatible',
            name: 'Fake',
            options: { baseURL: `${upstream.url}/v1`, apiKey: 'x' },
            models: { m1: { name: 'm1' } },
          },
        },
        model: 'fake/m1',
      }),
    );
    const result = await run(
      'opencode',
      ['run', 'Print the numbers one to five, then say hello.'],
      {
        ...opencodeOfflineEnv(home, project),
      },
      project,
    );
    return { ...result, sessionsDir: path.join(home, '.local', 'share', 'opencode') };
  });
}
