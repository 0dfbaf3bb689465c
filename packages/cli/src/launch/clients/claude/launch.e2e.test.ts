/**
 * `toolmask claude` end to end with the real `claude` binary (npm @anthropic-ai/claude-code
 * 2.1.328, `node_modules/.bin` on PATH as a person's install would be), headless (`claude -p`), in
 * a fresh home, against a scripted loopback fake of the Messages API: four bulky Bash commands,
 * `ToolSearch` for the read-back tool (Claude Code defers MCP tools), one read-back over MCP, the
 * final answer. The launcher must mask old outputs, send its session header, leave the person's
 * settings alone, print the run's figures, and leave no process or file of the run behind.
 *
 * Claude Code persists a Bash output over 30,000 characters itself (a 2 KB preview is sent), so
 * each command prints about 24,500 characters: whole when new, masked later. A second run prints
 * more than that once: the read-back and the search reach the file Claude Code saved it to.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseMaskedSnippet } from '@toolmask/core';
import { describe, expect, it } from 'vitest';
import { runToolmask } from '@toolmask/test-support/run-toolmask';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { processMarker, processesMarked } from '@toolmask/test-support/marked-processes';
import {
  anthropicAnswer,
  toolResultsOf,
  toolResultText,
} from '@toolmask/test-support/fake-anthropic';
import {
  startFakeUpstream,
  type RecordedUpstreamRequest,
} from '@toolmask/test-support/fake-upstream';
import { CLAUDE_READ_BACK_TOOL, CLAUDE_SEARCH_TOOL } from './launch.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../..');
const BIN = path.join(repo, 'node_modules/.bin');
const BASH_STEPS = 4;
const FINAL = 'FINAL ANSWER: the numbers are in.';

const cleanups = cleanUpAfterEach();
const marker = processMarker();

const bulkyCommand = (step: number) =>
  `seq ${(step + 1) * 100_000} ${(step + 1) * 100_000 + 3_500}`;

/**
 * Bash steps, `ToolSearch`, a read-back of the first masked output, `ToolSearch` again and a
 * search for a line only that output holds, then the answer.
 */
function respond(request: RecordedUpstreamRequest) {
  if (request.path !== '/v1/messages') return { status: 404, json: { type: 'error' } };
  const body = request.json as { tools?: Array<{ name: string }> };
  if (!body.tools?.some((tool) => tool.name === 'Bash')) return anthropicAnswer([{ text: 'ok' }]);
  const results = toolResultsOf(body);
  const step = results.length;
  const usage = { input: 2_000, cacheRead: 20_000 * step, cacheWrite: 3_000 };
  const call = (name: string, input: unknown) =>
    anthropicAnswer([{ toolUse: { id: `toolu_${step}`, name, input } }], usage);
  if (step < BASH_STEPS) {
    return call('Bash', { command: bulkyCommand(step), description: 'Print numbers' });
  }
  if (step === BASH_STEPS) return call('ToolSearch', { query: `select:${CLAUDE_READ_BACK_TOOL}` });
  if (step === BASH_STEPS + 1) {
    const snippet = results.map(toolResultText).find((text) => parseMaskedSnippet(text));
    const file = snippet ? parseMaskedSnippet(snippet)!.filePath : 'no snippet seen';
    return call(CLAUDE_READ_BACK_TOOL, { file, offset: 10, limit: 3 });
  }
  if (step === BASH_STEPS + 2) return call('ToolSearch', { query: `select:${CLAUDE_SEARCH_TOOL}` });
  if (step === BASH_STEPS + 3) return call(CLAUDE_SEARCH_TOOL, { query: '100009' });
  return anthropicAnswer([{ text: FINAL }], usage);
}

const FOUND = 'FINAL ANSWER: found it.';

/** The path a `<persisted-output>` preview names. */
function persistedPath(text: string): string | undefined {
  return /<persisted-output>[\s\S]*?Full output saved to: (\S+)/.exec(text)?.[1];
}

/** One 41 KB Bash output (persisted), then read one of its lines back and search for another. */
function respondPersisted(request: RecordedUpstreamRequest) {
  if (request.path !== '/v1/messages') return { status: 404, json: { type: 'error' } };
  const body = request.json as { tools?: Array<{ name: string }> };
  if (!body.tools?.some((tool) => tool.name === 'Bash')) return anthropicAnswer([{ text: 'ok' }]);
  const results = toolResultsOf(body);
  const step = results.length;
  const call = (name: string, input: unknown) =>
    anthropicAnswer([{ toolUse: { id: `toolu_${step}`, name, input } }]);
  const file = persistedPath(results[0] ? toolResultText(results[0]) : '') ?? 'no preview seen';
  switch (step) {
    case 0:
      return call('Bash', { command: 'seq 100000 106000', description: 'Print numbers' });
    case 1:
      return call('ToolSearch', { query: `select:${CLAUDE_READ_BACK_TOOL}` });
    case 2:
      return call(CLAUDE_READ_BACK_TOOL, { file, offset: 3500, limit: 2 });
    case 3:
      return call('ToolSearch', { query: `select:${CLAUDE_SEARCH_TOOL}` });
    case 4:
      return call(CLAUDE_SEARCH_TOOL, { query: '105432' });
    default:
      return anthropicAnswer([{ text: FOUND }]);
  }
}

/** A person's environment for a run: a fresh home, the fake as their Anthropic base URL. */
function claudeEnv(home: string, anthropicUrl: string): Record<string, string> {
  return {
    PATH: `${BIN}${path.delimiter}${process.env['PATH'] ?? '/usr/bin:/bin'}`,
    ...marker,
    HOME: home,
    NO_COLOR: '1',
    ANTHROPIC_BASE_URL: anthropicUrl,
    ANTHROPIC_API_KEY: 'fake-anthropic-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
  };
}

describe.skipIf(!existsSync(path.join(BIN, 'claude')))(
  'toolmask claude with the real claude',
  () => {
    it('masks old Bash outputs, reads one back over MCP, prints the answer and the figures', async () => {
      const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-claude-e2e-'));
      cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
      const home = path.join(root, 'home');
      const project = path.join(root, 'project');
      const state = path.join(root, 'state');
      await fs.mkdir(path.join(home, '.claude'), { recursive: true });
      await fs.mkdir(project);
      // The person's own settings: a custom header of theirs, kept next to the launcher's.
      const userSettings = JSON.stringify({ env: { ANTHROPIC_CUSTOM_HEADERS: 'x-team: blue' } });
      await fs.writeFile(path.join(home, '.claude', 'settings.json'), userSettings);
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
      const upstream = await startFakeUpstream(respond);
      cleanups.push(() => upstream.close());

      const startedAt = performance.now();
      const run = await runToolmask(
        [
          'claude',
          '--state-dir',
          state,
          '--masking-settings',
          maskingSettings,
          '-p',
          'Print some numbers, then read one output back.',
          '--allowedTools',
          'Bash',
        ],
        claudeEnv(home, upstream.url),
        project,
      );
      console.log(`toolmask claude -p: ${Math.round(performance.now() - startedAt)} ms`);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe(FINAL);

      const requests = upstream.requests.filter((request) => request.path === '/v1/messages');
      expect(requests.length).toBe(BASH_STEPS + 5);
      for (const request of requests) {
        expect(request.headers['x-api-key']).toBe('fake-anthropic-key');
        expect(request.headers['x-team']).toBe('blue');
        // The gateway keeps its own session header to itself.
        expect(request.headers['x-toolmask-session']).toBeUndefined();
      }
      const results = toolResultsOf(requests.at(-1)!.json);
      const bash = results.slice(0, BASH_STEPS);
      const masked = bash.map((block) => parseMaskedSnippet(toolResultText(block)));
      expect(masked.slice(0, -1).every(Boolean)).toBe(true);
      expect(toolResultText(bash[0]!)).toContain(`Full output: ${CLAUDE_READ_BACK_TOOL}(`);
      expect(toolResultText(results.at(-3)!)).toContain('100009\n100010\n100011');
      // The search finds the line in the first (masked) output, numbered as in its file.
      const found = toolResultText(results.at(-1)!);
      expect(found).toMatch(/^search_tool_outputs: 1 matching line in 1 of \d+ saved outputs/);
      expect(found).toContain('\n  10:100009\n');

      // The person's settings are as they were; the run's files in the state folder are gone.
      expect(await fs.readFile(path.join(home, '.claude', 'settings.json'), 'utf8')).toBe(
        userSettings,
      );
      expect(await fs.readdir(path.join(state, 'launch'))).toEqual([]);
      // No process of the run left (the run's files are named under its state folder).
      // No process of the run is left: none still carries the marker its launcher was given.
      expect(processesMarked(marker)).toEqual([]);

      const lines = run.stderr.trimEnd().split('\n');
      expect(lines[0]).toMatch(
        new RegExp(
          `^toolmask: claude → ${upstream.url} through the gateway at http://127\\.0\\.0\\.1:\\d+; read-back over MCP; dashboard `,
        ),
      );
      // Claude's own session id, for its resume command through toolmask (issue 35, item 14).
      expect(lines.at(-2)).toMatch(
        /^toolmask: resume through toolmask: toolmask claude --resume [0-9a-f-]{36}$/,
      );
      expect(lines.at(-3)).toMatch(
        /^toolmask: this run: 9 requests, [1-9]\d* outputs masked, (?:billed \d+(?:\.\d)?% (?:less|more) than without masking \([\d,]+ tokens(?:, \$[\d.]+|; no price for the model of [\d,]+ requests?)\)|billed the same as without masking|net billed not measured \([a-z ]+\))(?: over the [\d,]+ requests with cache figures)?, cache hits \d+% of [\d,]+ prompt tokens \(provider's count\)$/,
      );
      expect(lines.at(-1)).toContain("toolmask: dashboard: this run's gateway stopped with it");
      console.log(`${lines[0]}\n${lines.slice(-3).join('\n')}`);
    }, 60_000);

    // Claude Code saves a Bash output over 30,000 characters to <config>/projects/<project>/
    // <session>/tool-results/ and sends a 2 KB <persisted-output> preview naming the file: toolmask
    // leaves the preview alone, and its read-back and search over MCP reach the file (issue 32).
    it('reads back and searches the file a <persisted-output> preview names', async () => {
      const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-claude-persisted-'));
      cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
      const home = path.join(root, 'home');
      const project = path.join(root, 'project');
      await fs.mkdir(path.join(home, '.claude'), { recursive: true });
      await fs.mkdir(project);
      const upstream = await startFakeUpstream(respondPersisted);
      cleanups.push(() => upstream.close());

      const run = await runToolmask(
        ['claude', '--state-dir', path.join(root, 'state'), '-p', 'Find 105432.'],
        claudeEnv(home, upstream.url),
        project,
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe(FOUND);

      const requests = upstream.requests.filter((request) => request.path === '/v1/messages');
      const results = toolResultsOf(requests.at(-1)!.json).map(toolResultText);
      expect(results).toHaveLength(5);
      // Claude Code saved the output under the home it was given; its preview went up untouched.
      const file = persistedPath(results[0]!)!;
      expect(file.startsWith(path.join(home, '.claude', 'projects'))).toBe(true);
      expect(file).toMatch(/\/tool-results\/[\w.-]+\.txt$/);
      expect((await fs.readFile(file, 'utf8')).split('\n')[5432]).toBe('105432');
      // The read-back returns the file's lines 3500 and 3501.
      expect(results[2]).toContain('103499\n103500');
      // The search finds the line in the persisted file, named by its path.
      expect(results[4]).toMatch(
        /^search_tool_outputs: 1 matching line in 1 of \d+ saved outputs?/,
      );
      expect(results[4]).toContain(`${file}\n`);
      expect(results[4]).toContain('\n  5433:105432\n');
      expect(processesMarked(marker)).toEqual([]);
    }, 60_000);
  },
);
