/**
 * `toolmask opencode` end to end with the real `opencode` binary (npm opencode-ai 1.18.33,
 * `node_modules/.bin` on PATH), headless (`opencode run`), in a fresh home and project whose
 * `opencode.json` names an OpenAI-compatible provider, against a scripted loopback chat
 * completions fake: bulky `bash` commands, one read-back over MCP (`toolmask_read_tool_output`),
 * the final answer. The launcher must route the provider through the gateway, mask old outputs,
 * leave the person's config alone, print the run's figures and leave no process behind.
 *
 * opencode keeps the tail of an output over 2,000 lines itself: each command prints 1,500.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseMaskedSnippet } from '@toolmask/core';
import { describe, expect, it } from 'vitest';
import { runToolmask } from '@toolmask/test-support/run-toolmask';
import { opencodeOfflineEnv } from '@toolmask/test-support/opencode-env';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { processMarker, processesMarked } from '@toolmask/test-support/marked-processes';
import {
  PrefixCache,
  openAiAnswer,
  startFakeUpstream,
  type RecordedUpstreamRequest,
} from '@toolmask/test-support/fake-upstream';
import { OPENCODE_READ_BACK_TOOL } from './launch.js';

/** The search over saved outputs as opencode names MCP tools (`<server>_<tool>`). */
const OPENCODE_SEARCH_TOOL = 'toolmask_search_tool_outputs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../..');
const BIN = path.join(repo, 'node_modules/.bin');
const SHELL_STEPS = 4;
const FINAL = 'FINAL ANSWER: the rows are in.';

const cleanups = cleanUpAfterEach();
const marker = processMarker();

type Message = {
  role: string;
  content?: unknown;
  tool_call_id?: string;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
};

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content)
    ? content.map((part) => (part as { text?: string }).text ?? '').join('')
    : '';
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

const bodyOf = (request: RecordedUpstreamRequest) =>
  (request.json ?? {}) as { messages?: Message[]; tools?: Array<{ function?: { name?: string } }> };
/** The agent's own conversation: the requests that declare opencode's tools (not its title request). */
const isMain = (request: RecordedUpstreamRequest) =>
  (bodyOf(request).tools ?? []).some((tool) => tool.function?.name === 'bash');

function scripted() {
  const cache = new PrefixCache();
  return (request: RecordedUpstreamRequest) => {
    const messages = bodyOf(request).messages ?? [];
    const usage = cache.usage(isMain(request) ? 'main' : 'side', messages);
    if (!isMain(request)) return openAiAnswer({ content: 'Numbers' }, usage);
    const tools = toolMessages(messages);
    const shell = tools.filter((tool) => tool.name === 'bash');
    const readBacks = tools.filter((tool) => tool.name === OPENCODE_READ_BACK_TOOL);
    const id = `call_${tools.length}`;
    if (shell.length < SHELL_STEPS) {
      const first = (shell.length + 1) * 100_000;
      // The last command also prints its environment: the access secret must not be in it.
      const env = shell.length === SHELL_STEPS - 1 ? 'env; ' : '';
      const command = `${env}seq ${first} ${first + 1_499} | sed 's/^/row /'`;
      const args = JSON.stringify({ command, description: `step ${shell.length}` });
      return openAiAnswer({ toolCalls: [{ id, name: 'bash', arguments: args }] }, usage);
    }
    if (readBacks.length === 0) {
      const snippet = shell.map((tool) => tool.text).find((text) => parseMaskedSnippet(text));
      const file = snippet ? parseMaskedSnippet(snippet)!.filePath : 'no snippet seen';
      const args = JSON.stringify({ file, offset: 10, limit: 3 });
      return openAiAnswer(
        { toolCalls: [{ id, name: OPENCODE_READ_BACK_TOOL, arguments: args }] },
        usage,
      );
    }
    // A line only the first (masked) output holds, found without naming its file.
    if (!tools.some((tool) => tool.name === OPENCODE_SEARCH_TOOL)) {
      const args = JSON.stringify({ query: '100009' });
      return openAiAnswer(
        { toolCalls: [{ id, name: OPENCODE_SEARCH_TOOL, arguments: args }] },
        usage,
      );
    }
    return openAiAnswer({ content: FINAL }, usage);
  };
}

describe.skipIf(!existsSync(path.join(BIN, 'opencode')))(
  'toolmask opencode with the real opencode',
  () => {
    it('routes the provider, masks old outputs, reads one back over MCP, prints the figures', async () => {
      const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-opencode-e2e-'));
      cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
      const home = path.join(root, 'home');
      const project = path.join(root, 'project');
      const state = path.join(root, 'state');
      await fs.mkdir(home);
      await fs.mkdir(path.join(project, '.git'), { recursive: true });
      const upstream = await startFakeUpstream(scripted());
      cleanups.push(() => upstream.close());
      const config = `${JSON.stringify(
        {
          $schema: 'https://opencode.ai/config.json',
          provider: {
            fake: {
              npm: '@ai-sdk/openai-compatible',
              name: 'Fake',
              options: { baseURL: `${upstream.url}/v1`, apiKey: 'fake-openai-key' },
              models: { m1: { name: 'm1' } },
            },
          },
          model: 'fake/m1',
        },
        null,
        2,
      )}\n`;
      await fs.writeFile(path.join(project, 'opencode.json'), config);
      const maskingSettings = path.join(root, 'masking.json');
      await fs.writeFile(
        maskingSettings,
        JSON.stringify({
          experimental: {
            toolOutputMasking: {
              toolProtectionThreshold: 5_000,
              minPrunableTokensThreshold: 2_000,
              // A short session: the floor warm rule masks in it (the rule is not the subject).
              warmRule: 'floor',
            },
          },
        }),
      );

      const startedAt = performance.now();
      const run = await runToolmask(
        [
          'opencode',
          '--state-dir',
          state,
          '--masking-settings',
          maskingSettings,
          'run',
          'Print some rows, then read one output back.',
        ],
        {
          ...opencodeOfflineEnv(home, project),
          ...marker,
        },
        project,
      );
      console.log(`toolmask opencode run: ${Math.round(performance.now() - startedAt)} ms`);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(FINAL);

      const main = upstream.requests.filter(isMain);
      expect(main.length).toBe(SHELL_STEPS + 3);
      for (const request of upstream.requests) {
        expect(request.path).toBe('/v1/chat/completions');
        expect(request.headers['authorization']).toBe('Bearer fake-openai-key');
        expect(request.headers['x-toolmask-session']).toBeUndefined();
      }
      // Old outputs went as snippets naming opencode's MCP tool; the read-back returned rows.
      const last = toolMessages(bodyOf(main.at(-1)!).messages ?? []);
      const shell = last.filter((tool) => tool.name === 'bash');
      expect(shell.filter((tool) => parseMaskedSnippet(tool.text)).length).toBeGreaterThan(0);
      expect(shell.find((tool) => parseMaskedSnippet(tool.text))!.text).toContain(
        `${OPENCODE_READ_BACK_TOOL}(`,
      );
      const readBack = last.find((tool) => tool.name === OPENCODE_READ_BACK_TOOL)!;
      expect(readBack.text).toMatch(/row \d+/);
      // The search found the line in a saved output, numbered as in its file.
      const found = last.find((tool) => tool.name === OPENCODE_SEARCH_TOOL)!;
      expect(found.text).toMatch(/search_tool_outputs: 1 matching line in 1 of \d+ saved outputs/);
      expect(found.text).toMatch(/\n {2}\d+:row 100009\n/);
      // The same bytes in every later request.
      const seen = new Map<string, string>();
      for (const request of main) {
        for (const tool of toolMessages(bodyOf(request).messages ?? [])) {
          if (!parseMaskedSnippet(tool.text)) continue;
          expect(seen.get(tool.id) ?? tool.text).toBe(tool.text);
          seen.set(tool.id, tool.text);
        }
      }

      // The access secret reached nothing upstream (the model's commands printed their env).
      const secret = (await fs.readFile(path.join(state, 'access-secret'), 'utf8')).trim();
      for (const request of upstream.requests) {
        expect(request.raw.toString('utf8')).not.toContain(secret);
      }
      expect(
        upstream.requests.some((request) => request.raw.toString('utf8').includes('OPENCODE')),
      ).toBe(true);

      // The person's config is as they wrote it; no process of the run is left.
      expect(await fs.readFile(path.join(project, 'opencode.json'), 'utf8')).toBe(config);
      // No process of the run is left: none still carries the marker its launcher was given.
      expect(processesMarked(marker)).toEqual([]);

      const lines = run.stderr.trimEnd().split('\n');
      expect(lines[0]).toMatch(
        new RegExp(
          `^toolmask: opencode → ${upstream.url}/v1 through the gateway at http://127\\.0\\.0\\.1:\\d+; read-back over MCP; dashboard `,
        ),
      );
      // OpenCode's own session id (x-session-affinity), for its resume command (issue 35).
      expect(lines.at(-2)).toMatch(
        /^toolmask: resume through toolmask: toolmask opencode -s ses_[0-9A-Za-z]+$/,
      );
      expect(lines.at(-3)).toMatch(
        /^toolmask: this run: \d+ requests, [1-9]\d* outputs masked, (?:billed \d+(?:\.\d)?% (?:less|more) than without masking \([\d,]+ tokens(?:, \$[\d.]+|; no price for the model of [\d,]+ requests?)\)|billed the same as without masking|net billed not measured \([a-z ]+\))(?: over the [\d,]+ requests with cache figures)?, cache hits \d+% of [\d,]+ prompt tokens \(provider's count\)$/,
      );
      expect(lines.at(-1)).toContain("toolmask: dashboard: this run's gateway stopped with it");
      console.log(`${lines[0]}\n${lines.slice(-3).join('\n')}`);
    }, 60_000);
  },
);
