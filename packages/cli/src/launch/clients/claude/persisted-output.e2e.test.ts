/**
 * Claude Code's persisted outputs through `toolmask claude`, with the real `claude` binary
 * (2.1.328) against a scripted loopback fake of the Messages API (issue 32). Claude Code saves a
 * Bash output over 30,000 characters to `<config>/projects/<project>/<session>/tool-results/` and
 * sends a 2 KB `<persisted-output>` preview naming that file. toolmask leaves the preview alone
 * (foreignMarkers.ts); the read-back and the search over MCP reach the file itself.
 */
import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
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
const CLI = path.join(repo, 'packages/cli/dist/index.js');
const BIN = path.join(repo, 'node_modules/.bin');
const FINAL = 'FINAL ANSWER: found it.';

const cleanups = cleanUpAfterEach();
const marker = processMarker();

/** The path a `<persisted-output>` preview names. */
function persistedPath(text: string): string | undefined {
  return /<persisted-output>[\s\S]*?Full output saved to: (\S+)/.exec(text)?.[1];
}

/** One 41 KB Bash output (persisted), then read one of its lines back and search for another. */
function respond(request: RecordedUpstreamRequest) {
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
      return anthropicAnswer([{ text: FINAL }]);
  }
}

describe.skipIf(!existsSync(path.join(BIN, 'claude')))(
  "toolmask claude and Claude Code's persisted outputs",
  () => {
    it('reads back and searches the file a <persisted-output> preview names', async () => {
      const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-claude-persisted-'));
      cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
      const home = path.join(root, 'home');
      const project = path.join(root, 'project');
      await fs.mkdir(path.join(home, '.claude'), { recursive: true });
      await fs.mkdir(project);
      const upstream = await startFakeUpstream(respond);
      cleanups.push(() => upstream.close());

      const child = spawn(
        process.execPath,
        [CLI, 'claude', '--state-dir', path.join(root, 'state'), '-p', 'Find 105432.'],
        {
          cwd: project,
          env: {
            PATH: `${BIN}${path.delimiter}${process.env['PATH'] ?? '/usr/bin:/bin'}`,
            ...marker,
            HOME: home,
            NO_COLOR: '1',
            ANTHROPIC_BASE_URL: upstream.url,
            ANTHROPIC_API_KEY: 'fake-anthropic-key',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            DISABLE_AUTOUPDATER: '1',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code, stderr).toBe(0);
      expect(stdout.trim()).toBe(FINAL);

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
