/**
 * `toolmask qwen` end to end with the real `qwen` binary (npm @qwen-code/qwen-code 0.24.4),
 * headless, in a temporary home and workspace, against a scripted loopback OpenAI-compatible fake:
 * the model runs a bulky shell command several times, reads one masked output back through the
 * gateway's MCP tool, then answers.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseMaskedSnippet } from '@toolmask/core';
import { describe, expect, it } from 'vitest';
import { runToolmask } from '@toolmask/test-support/run-toolmask';
import {
  PrefixCache,
  openAiAnswer,
  startFakeUpstream,
  type FakeUpstream,
} from '@toolmask/test-support/fake-upstream';
import { FINAL_PREFIX, SEARCHED_LINE, nextStep } from '@toolmask/test-support/scripted-agent';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../..');
const QWEN = path.join(repo, 'node_modules/@qwen-code/qwen-code/cli-entry.js');
const SHELL_STEPS = 6;
const READ_TOOL = 'mcp__toolmask__read_tool_output';
const SEARCH_TOOL = 'mcp__toolmask__search_tool_outputs';

type Message = {
  role: string;
  content?: unknown;
  tool_call_id?: string;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
};

const cleanups = cleanUpAfterEach();

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content)
    ? content.map((part) => (part as { text?: string }).text ?? '').join('')
    : '';
}

/** Runs the `toolmask` command to its end; its exit code and what it printed. */
function runToolmaskIn(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  return runToolmask(args, options.env, options.cwd);
}

/** The main conversation (not a side request such as a summary): qwen's own system prompt. */
function isMain(messages: Message[]): boolean {
  return textOf(messages[0]?.content).startsWith('You are Qwen Code');
}

/** Tool messages with the name of the call they answer. */
function toolMessages(messages: Message[]): Array<{ id: string; name: string; text: string }> {
  const names = new Map<string, string>();
  for (const message of messages) {
    for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name);
  }
  return messages
    .filter((message) => message.role === 'tool')
    .map((message) => ({
      id: message.tool_call_id ?? '',
      name: names.get(message.tool_call_id ?? '') ?? '',
      text: textOf(message.content),
    }));
}

async function scriptedQwen(): Promise<FakeUpstream> {
  const cache = new PrefixCache();
  let calls = 0;
  const upstream = await startFakeUpstream((request) => {
    const messages = ((request.json as { messages?: Message[] })?.messages ?? []) as Message[];
    const usage = cache.usage(isMain(messages) ? 'main' : 'side', messages);
    if (!isMain(messages)) return openAiAnswer({ content: 'ok' }, usage);
    const tools = toolMessages(messages);
    const shell = tools.filter((tool) => tool.name === 'run_shell_command');
    const readBacks = tools.filter((tool) => tool.name === READ_TOOL);
    const step = nextStep({
      shellOutputs: shell.length,
      readBacks: readBacks.length,
      searches: tools.filter((tool) => tool.name === SEARCH_TOOL).length,
      shellSteps: SHELL_STEPS,
      outputs: shell.map((tool) => tool.text),
      ...(readBacks[0] ? { readBackOutput: readBacks[0].text } : {}),
    });
    const id = `call_${calls++}`;
    if (step.kind === 'shell') {
      // `; sleep 0.3`: qwen 0.24.4 can resolve a command before its output arrives (docs/gateway.md).
      const args = JSON.stringify({
        command: `${step.command}; sleep 0.3`,
        description: `step ${step.step}`,
      });
      return openAiAnswer(
        { toolCalls: [{ id, name: 'run_shell_command', arguments: args }] },
        usage,
      );
    }
    if (step.kind === 'read-back') {
      const args = JSON.stringify({ file: step.file, offset: 1, limit: 5 });
      return openAiAnswer({ toolCalls: [{ id, name: READ_TOOL, arguments: args }] }, usage);
    }
    if (step.kind === 'search') {
      const args = JSON.stringify({ query: step.query, regex: step.regex });
      return openAiAnswer({ toolCalls: [{ id, name: SEARCH_TOOL, arguments: args }] }, usage);
    }
    return openAiAnswer({ content: step.text }, usage);
  });
  cleanups.push(() => upstream.close());
  return upstream;
}

describe('toolmask qwen with the real qwen binary', () => {
  it('masks, keeps each masked output stable, reads back over MCP, exits 0 with the answer', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-qwen-e2e-'));
    cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
    const home = path.join(root, 'home');
    const project = path.join(root, 'project');
    await fs.mkdir(path.join(home, '.qwen'), { recursive: true });
    await fs.mkdir(project);
    // Test quiet: no ripgrep warning, no memory side requests ($version: qwen rewrites older files).
    await fs.writeFile(
      path.join(home, '.qwen', 'settings.json'),
      JSON.stringify({
        $version: 4,
        tools: { useRipgrep: false },
        memory: { enableManagedAutoMemory: false },
      }),
    );
    const maskingSettings = path.join(root, 'masking-settings.json');
    await fs.writeFile(
      maskingSettings,
      JSON.stringify({
        experimental: {
          toolOutputMasking: {
            toolProtectionThreshold: 25_000,
            minPrunableTokensThreshold: 15_000,
            // A short session: the floor warm rule masks in it (the rule is not the subject).
            warmRule: 'floor',
          },
        },
      }),
    );
    const upstream = await scriptedQwen();
    const { code, stdout, stderr } = await runToolmaskIn(
      [
        'qwen',
        '--qwen-bin',
        QWEN,
        '--state-dir',
        path.join(root, 'state'),
        '--masking-settings',
        maskingSettings,
        '-p',
        'Run the build steps, then summarize.',
        '--auth-type',
        'openai',
        '--yolo',
      ],
      {
        cwd: project,
        env: {
          PATH: process.env['PATH'] ?? '/usr/bin:/bin',
          HOME: home,
          TERM: 'dumb',
          NO_COLOR: '1',
          OPENAI_BASE_URL: `${upstream.url}/v1`,
          OPENAI_API_KEY: 'fake-openai-key',
          OPENAI_MODEL: 'qwen3-coder-plus',
          QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
        },
      },
    );
    expect(code, stderr).toBe(0);

    const requests = upstream.requests
      .map((request) => ((request.json as { messages?: Message[] })?.messages ?? []) as Message[])
      .filter(isMain);
    expect(requests.length).toBe(SHELL_STEPS + 3);
    // The search over MCP found the line only the first (masked) output holds.
    const search = toolMessages(requests.at(-1)!).find((tool) => tool.name === SEARCH_TOOL);
    expect(search?.text).toMatch(/search_tool_outputs: 1 matching line in 1 of \d+ saved outputs/);
    expect(search?.text).toContain(`:${SEARCHED_LINE}\n`);
    expect(upstream.requests[0]!.headers['authorization']).toBe('Bearer fake-openai-key');
    // Every tool_call_id has its tool message right after its assistant message, in every request.
    for (const messages of requests) {
      messages.forEach((message, index) => {
        const ids = (message.tool_calls ?? []).map((call) => call.id);
        if (ids.length === 0) return;
        const answers = messages
          .slice(index + 1, index + 1 + ids.length)
          .map((next) => next.tool_call_id);
        expect(answers).toEqual(ids);
      });
    }
    // Old outputs went as snippets naming qwen's MCP tool; the newest whole.
    const last = toolMessages(requests[SHELL_STEPS]!).filter(
      (tool) => tool.name === 'run_shell_command',
    );
    const masked = last.filter((tool) => parseMaskedSnippet(tool.text));
    expect(masked.length).toBeGreaterThan(1);
    expect(masked[0]!.text).toContain(`${READ_TOOL}(file, offset, limit, pattern)`);
    expect(parseMaskedSnippet(last.at(-1)!.text)).toBeUndefined();
    // The same bytes in every later request.
    const seen = new Map<string, string>();
    for (const messages of requests) {
      for (const tool of toolMessages(messages)) {
        if (!parseMaskedSnippet(tool.text)) continue;
        if (!seen.has(tool.id)) seen.set(tool.id, tool.text);
        else expect(tool.text).toBe(seen.get(tool.id));
      }
    }
    // The read-back returned the saved bytes, and qwen printed the answer quoting them.
    const file = parseMaskedSnippet(masked[0]!.text)!.filePath;
    const saved = (await fs.readFile(file, 'utf8')).split('\n').slice(0, 5);
    // Saved without qwen's Command and Directory lines: line N is the command's (issue 35).
    expect(saved[0]).toMatch(/^Output: /);
    const readBack = toolMessages(requests.at(-1)!).find((tool) => tool.name === READ_TOOL)!;
    for (const line of saved) expect(readBack.text.split('\n')).toContain(line);
    expect(stdout).toContain(
      `${FINAL_PREFIX} read back "${saved.find((line) => line.startsWith('row '))}"`,
    );
    // The person's settings file is untouched.
    expect(
      JSON.parse(await fs.readFile(path.join(home, '.qwen', 'settings.json'), 'utf8')),
    ).not.toHaveProperty('mcpServers');
    // Said once at launch: qwen's own truncation is on (its default) (issue 24, item 6).
    const lines = stderr.trimEnd().split('\n');
    expect(lines.filter((line) => line.startsWith('toolmask: note: qwen cuts'))).toHaveLength(1);
    // When qwen exits, the run's figures and where its sessions are (issue 24, items 7 and the
    // summary): after everything qwen printed.
    expect(lines.at(-3)).toMatch(
      /^toolmask: this run: \d+ requests, [1-9]\d* outputs masked, (?:billed \d+(?:\.\d)?% (?:less|more) than without masking \([\d,]+ tokens(?:, \$[\d.]+|; no price for the model of [\d,]+ requests?)\)|billed the same as without masking|net billed not measured \([a-z ]+\))(?: over the [\d,]+ requests with cache figures)?, cache hits \d+% of [\d,]+ prompt tokens \(provider's count\)$/,
    );
    // qwen's own hint (`qwen --resume <id>`) would skip masking: the command through toolmask,
    // with qwen's session id (its chat recording's name) (issue 35, the first hour).
    const chats = path.join(home, '.qwen', 'projects');
    const [folder] = await fs.readdir(chats);
    const [recording] = await fs.readdir(path.join(chats, folder!, 'chats'));
    expect(lines.at(-2)).toBe(
      `toolmask: resume through toolmask: toolmask qwen --resume ${recording!.replace(/\.jsonl$/, '')}`,
    );
    expect(lines.at(-1)).toContain("toolmask: dashboard: this run's gateway stopped with it");
  }, 180_000);

  // qwen takes --openai-base-url over OPENAI_BASE_URL: a flag left as given would skip the gateway.
  it('--openai-base-url=URL on the command line goes through the gateway too', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-qwen-e2e-'));
    cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
    const home = path.join(root, 'home');
    const project = path.join(root, 'project');
    const state = path.join(root, 'state');
    await fs.mkdir(path.join(home, '.qwen'), { recursive: true });
    await fs.mkdir(project);
    await fs.writeFile(
      path.join(home, '.qwen', 'settings.json'),
      JSON.stringify({
        $version: 4,
        tools: { useRipgrep: false },
        memory: { enableManagedAutoMemory: false },
      }),
    );
    const upstream = await startFakeUpstream(() => openAiAnswer({ content: 'hello' }));
    cleanups.push(() => upstream.close());
    const { code, stdout, stderr } = await runToolmaskIn(
      [
        'qwen',
        '--qwen-bin',
        QWEN,
        '--state-dir',
        state,
        `--openai-base-url=${upstream.url}/v1`,
        '-p',
        'say hello',
        '--auth-type',
        'openai',
      ],
      {
        cwd: project,
        env: {
          PATH: process.env['PATH'] ?? '/usr/bin:/bin',
          HOME: home,
          TERM: 'dumb',
          NO_COLOR: '1',
          OPENAI_API_KEY: 'fake-openai-key',
          OPENAI_MODEL: 'qwen3-coder-plus',
        },
      },
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('hello');
    const main = upstream.requests.filter((request) =>
      isMain(((request.json as { messages?: Message[] })?.messages ?? []) as Message[]),
    );
    expect(main.length).toBeGreaterThan(0);
    // Through the gateway: it removes its own session header before forwarding, and records usage.
    for (const request of upstream.requests) {
      expect(request.headers['x-toolmask-session']).toBeUndefined();
      expect(request.headers['authorization']).toBe('Bearer fake-openai-key');
    }
    expect(await fs.readdir(path.join(state, 'usage'))).toHaveLength(1);
  }, 180_000);
});
