/**
 * `toolmask opencode -m anthropic/…` end to end with the real `opencode` binary (npm opencode-ai
 * 1.18.33) and its own built-in `anthropic` provider (no provider in the person's config: only
 * `ANTHROPIC_API_KEY`, and `ANTHROPIC_BASE_URL` pointing at a scripted loopback Messages API fake,
 * which stands in for api.anthropic.com): bulky `bash` commands, one read-back over MCP, the final
 * answer (issue 35, item 1). Every request must reach the fake through the gateway's Anthropic
 * front, with old outputs masked.
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
import {
  anthropicAnswer,
  toolResultText,
  type ToolResultBlock,
} from '@toolmask/test-support/fake-anthropic';
import { processMarker, processesMarked } from '@toolmask/test-support/marked-processes';
import {
  startFakeUpstream,
  type RecordedUpstreamRequest,
} from '@toolmask/test-support/fake-upstream';
import { OPENCODE_READ_BACK_TOOL } from './launch.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../..');
const BIN = path.join(repo, 'node_modules/.bin');
const SHELL_STEPS = 4;
const FINAL = 'FINAL ANSWER: the rows are in, through Anthropic.';

const cleanups = cleanUpAfterEach();
const marker = processMarker();

type Block = { type: string; id?: string; name?: string } & Partial<Omit<ToolResultBlock, 'type'>>;
type Body = {
  messages?: Array<{ role: string; content: unknown }>;
  tools?: Array<{ name?: string }>;
};

const bodyOf = (request: RecordedUpstreamRequest) => (request.json ?? {}) as Body;
const isMain = (request: RecordedUpstreamRequest) =>
  (bodyOf(request).tools ?? []).some((tool) => tool.name === 'bash');

/** Tool results with the name of the call they answer, oldest first. */
function results(body: Body): Array<{ id: string; name: string; text: string }> {
  const names = new Map<string, string>();
  const found: Array<{ id: string; name: string; text: string }> = [];
  for (const message of body.messages ?? []) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Block[]) {
      if (block.type === 'tool_use') names.set(block.id ?? '', block.name ?? '');
      if (block.type === 'tool_result') {
        const id = block.tool_use_id ?? '';
        const text = toolResultText({ ...block, type: 'tool_result', tool_use_id: id });
        found.push({ id, name: names.get(id) ?? '', text });
      }
    }
  }
  return found;
}

let calls = 0;
function scripted(request: RecordedUpstreamRequest) {
  if (!isMain(request)) return anthropicAnswer([{ text: 'Rows' }]);
  const tools = results(bodyOf(request));
  const shell = tools.filter((tool) => tool.name === 'bash');
  const id = `toolu_e2e_${++calls}`;
  if (shell.length < SHELL_STEPS) {
    const first = (shell.length + 1) * 100_000;
    const command = `seq ${first} ${first + 1_499} | sed 's/^/row /'`;
    return anthropicAnswer([
      { toolUse: { id, name: 'bash', input: { command, description: `step ${shell.length}` } } },
    ]);
  }
  if (!tools.some((tool) => tool.name === OPENCODE_READ_BACK_TOOL)) {
    const snippet = shell.map((tool) => tool.text).find((text) => parseMaskedSnippet(text));
    const file = snippet ? parseMaskedSnippet(snippet)!.filePath : 'no snippet seen';
    return anthropicAnswer([
      { toolUse: { id, name: OPENCODE_READ_BACK_TOOL, input: { file, offset: 10, limit: 3 } } },
    ]);
  }
  return anthropicAnswer([{ text: FINAL }]);
}

describe.skipIf(!existsSync(path.join(BIN, 'opencode')))(
  "toolmask opencode with the real opencode's built-in anthropic provider",
  () => {
    it('routes it to the Anthropic front, masks old outputs and reads one back over MCP', async () => {
      const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-opencode-anthropic-'));
      cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
      const home = path.join(root, 'home');
      const project = path.join(root, 'project');
      const state = path.join(root, 'state');
      await fs.mkdir(home);
      await fs.mkdir(path.join(project, '.git'), { recursive: true });
      const upstream = await startFakeUpstream(scripted);
      cleanups.push(() => upstream.close());
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

      const run = await runToolmask(
        [
          'opencode',
          '--state-dir',
          state,
          '--masking-settings',
          maskingSettings,
          'run',
          '-m',
          'anthropic/claude-sonnet-4-5',
          'Print some rows, then read one output back.',
        ],
        {
          ...opencodeOfflineEnv(home, project),
          ...marker,
          ANTHROPIC_API_KEY: 'fake-anthropic-key',
          // @ai-sdk/anthropic's own variable (with /v1): where opencode would send its requests.
          ANTHROPIC_BASE_URL: `${upstream.url}/v1`,
        },
        project,
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(FINAL);

      const main = upstream.requests.filter(isMain);
      expect(main.length).toBe(SHELL_STEPS + 2);
      for (const request of upstream.requests) {
        expect(request.path).toBe('/v1/messages');
        expect(request.headers['x-api-key']).toBe('fake-anthropic-key');
        expect(request.headers['x-toolmask-session']).toBeUndefined();
      }
      const last = results(bodyOf(main.at(-1)!));
      const shell = last.filter((tool) => tool.name === 'bash');
      expect(shell).toHaveLength(SHELL_STEPS);
      const masked = shell.filter((tool) => parseMaskedSnippet(tool.text));
      expect(masked.length).toBeGreaterThan(0);
      expect(masked[0]!.text).toContain(`${OPENCODE_READ_BACK_TOOL}(`);
      // Each request's newest output went whole.
      for (const request of main.slice(1)) {
        expect(parseMaskedSnippet(results(bodyOf(request)).at(-1)!.text)).toBeUndefined();
      }
      const readBack = last.find((tool) => tool.name === OPENCODE_READ_BACK_TOOL)!;
      expect(readBack.text).toMatch(/row \d+/);
      expect(processesMarked(marker)).toEqual([]);
      expect(run.stderr.split('\n')[0]).toMatch(
        new RegExp(
          `^toolmask: opencode → ${upstream.url} through the gateway at http://127\\.0\\.0\\.1:\\d+`,
        ),
      );
    }, 180_000);
  },
);
