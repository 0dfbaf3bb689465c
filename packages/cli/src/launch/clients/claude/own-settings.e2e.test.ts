/**
 * `toolmask claude` reads the masking settings a Claude Code user keeps beside claude's own
 * config, `~/.claude/toolmask.json` (issue 35, item 10), with the real `claude` (headless) in a
 * fresh home against a scripted fake of the Messages API: three bulky Bash outputs, then the
 * answer. The defaults keep all three whole (about 20,000 tokens in all, under the 50,000-token
 * window); a tiny window in `~/.claude/toolmask.json` masks the older ones, and wins over gemini's
 * `settings.json`, which turns masking off; a bad key there stops the launch with exit 2, naming
 * the file and the key, before claude or a gateway starts.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseMaskedSnippet } from '@toolmask/core';
import { describe, expect, it } from 'vitest';
import { runToolmask, REPO_BIN } from '@toolmask/test-support/run-toolmask';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { processMarker } from '@toolmask/test-support/marked-processes';
import {
  anthropicAnswer,
  toolResultsOf,
  toolResultText,
} from '@toolmask/test-support/fake-anthropic';
import {
  startFakeUpstream,
  type RecordedUpstreamRequest,
} from '@toolmask/test-support/fake-upstream';

const BASH_STEPS = 3;
const FINAL = 'FINAL ANSWER: done.';

const cleanups = cleanUpAfterEach();
const marker = processMarker();

/** Three Bash commands of about 24,500 characters each (under Claude Code's own 30,000), then the answer. */
function respond(request: RecordedUpstreamRequest) {
  if (request.path !== '/v1/messages') return { status: 404, json: { type: 'error' } };
  const body = request.json as { tools?: Array<{ name: string }> };
  if (!body.tools?.some((tool) => tool.name === 'Bash')) return anthropicAnswer([{ text: 'ok' }]);
  const step = toolResultsOf(body).length;
  if (step >= BASH_STEPS) return anthropicAnswer([{ text: FINAL }]);
  const from = (step + 1) * 100_000;
  return anthropicAnswer([
    {
      toolUse: {
        id: `toolu_${step}`,
        name: 'Bash',
        input: { command: `seq ${from} ${from + 3_500}`, description: 'Print numbers' },
      },
    },
  ]);
}

async function person() {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-claude-own-settings-'));
  cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
  const home = path.join(root, 'home');
  const project = path.join(root, 'project');
  await fs.mkdir(path.join(home, '.claude'), { recursive: true });
  await fs.mkdir(path.join(home, '.gemini'), { recursive: true });
  await fs.mkdir(project);
  const upstream = await startFakeUpstream(respond);
  cleanups.push(() => upstream.close());
  const env = {
    PATH: `${REPO_BIN}${path.delimiter}${process.env['PATH'] ?? '/usr/bin:/bin'}`,
    ...marker,
    HOME: home,
    NO_COLOR: '1',
    ANTHROPIC_BASE_URL: upstream.url,
    ANTHROPIC_API_KEY: 'fake-anthropic-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
  };
  const run = () =>
    runToolmask(
      ['claude', '--state-dir', path.join(root, 'state'), '-p', 'Print numbers.'],
      env,
      project,
    );
  /** The Bash outputs of the last request, masked or whole. */
  const maskedOutputs = () => {
    const requests = upstream.requests.filter((request) => request.path === '/v1/messages');
    const results = toolResultsOf(requests.at(-1)!.json).slice(0, BASH_STEPS);
    return results.map((block) => parseMaskedSnippet(toolResultText(block)) !== undefined);
  };
  return { home, upstream, run, maskedOutputs };
}

describe.skipIf(!existsSync(path.join(REPO_BIN, 'claude')))(
  'toolmask claude reads ~/.claude/toolmask.json (the real claude)',
  () => {
    it("the defaults keep every output whole; a tiny window there masks the older ones, over gemini's file", async () => {
      const defaults = await person();
      const plain = await defaults.run();
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.stdout.trim()).toBe(FINAL);
      expect(defaults.maskedOutputs()).toEqual([false, false, false]);

      const own = await person();
      await fs.writeFile(
        path.join(own.home, '.gemini', 'settings.json'),
        JSON.stringify({ experimental: { toolOutputMasking: { enabled: false } } }),
      );
      await fs.writeFile(
        path.join(own.home, '.claude', 'toolmask.json'),
        // A short session: the floor warm rule masks in it (read from this file too).
        JSON.stringify({
          toolProtectionThreshold: 2_000,
          minPrunableTokensThreshold: 1_000,
          warmRule: 'floor',
        }),
      );
      const masked = await own.run();
      expect(masked.code, masked.stderr).toBe(0);
      expect(masked.stdout.trim()).toBe(FINAL);
      expect(own.maskedOutputs()).toEqual([true, true, false]);
    }, 120_000);

    it('a bad key there stops the launch with exit 2, naming the file and the key', async () => {
      const bad = await person();
      const file = path.join(bad.home, '.claude', 'toolmask.json');
      await fs.writeFile(file, '{ "toolProtectionThreshold": "50k" }\n');
      const run = await bad.run();
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`the masking settings in ${file} have a mistake`);
      expect(run.stderr).toContain(
        `Invalid setting toolProtectionThreshold in ${file}: expected non-negative integer, got the string "50k".`,
      );
      expect(bad.upstream.requests).toEqual([]);
    }, 60_000);
  },
);
