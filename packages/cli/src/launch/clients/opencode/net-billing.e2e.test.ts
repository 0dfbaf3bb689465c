/**
 * Net billing end to end with the real `opencode` (`toolmask opencode run`, npm opencode-ai
 * 1.18.33) and its built-in `anthropic` provider (as builtin.e2e.test.ts): a scripted session of
 * 15 `bash` calls printing about 26 KB each, against a fake Messages API that bills with
 * Anthropic's prefix-cache rules (reads 0.1x, writes 1.25x), run masked (the default settings)
 * and with masking off. The masked run must bill no more than the unmasked one, its exit line's
 * net figure must be the fakes' own bills' difference (to the rounding of the two runs' token
 * counts: one per request), and nothing but masking may break the cache.
 *
 * opencode keeps the tail of an output over 2,000 lines itself: each command prints 1,450 lines
 * of 18 characters.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseMaskedSnippet } from '@toolmask/core';
import { describe, expect, it } from 'vitest';
import { runToolmask } from '@toolmask/test-support/run-toolmask';
import { opencodeOfflineEnv } from '@toolmask/test-support/opencode-env';
import {
  anthropicAnswer,
  toolResultText,
  toolResultsOf,
} from '@toolmask/test-support/fake-anthropic';
import { anthropicUsageOf, type PromptBill } from '@toolmask/test-support/fake-prefix-bill';
import {
  breaksNotFromMasking,
  maskedAndUnmasked,
  netTokensOf,
} from '@toolmask/test-support/net-billing-run';
import { processMarker, processesMarked } from '@toolmask/test-support/marked-processes';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../..');
const BIN = path.join(repo, 'node_modules/.bin');
const STEPS = 15;
const FINAL = 'FINAL ANSWER: done.';
const MODEL = 'anthropic/claude-sonnet-4-5';
const marker = processMarker();

/** About 26 KB of numbered rows, different each step. */
const bulkyCommand = (step: number) =>
  `seq ${(step + 1) * 100_000} ${(step + 1) * 100_000 + 1_449} | sed 's/^/row number /'`;

/** How the fake billed one request, and how many masked outputs its body held. */
type Billed = PromptBill & { masked: number };

type Body = { tools?: Array<{ name?: string }> };
/** The agent's own conversation: the requests that declare opencode's tools (not its title request). */
const isMain = (body: Body) => (body.tools ?? []).some((tool) => tool.name === 'bash');

describe.skipIf(!existsSync(path.join(BIN, 'opencode')))('toolmask opencode: net billing', () => {
  it('bills no more masked than unmasked, and the exit line says by how much', async () => {
    const billedRuns: Billed[][] = [];
    const { masked, unmasked } = await maskedAndUnmasked({
      rules: 'anthropic',
      arrayPath: ['messages'],
      respond: (bill) => {
        const requests: Billed[] = [];
        billedRuns.push(requests);
        return (request) => {
          if (request.path !== '/v1/messages') return { status: 404, json: { type: 'error' } };
          const body = request.json as Body;
          // The title request (no tools) is not the session's: answered, not billed.
          if (!isMain(body)) return anthropicAnswer([{ text: 'Numbers' }]);
          const results = toolResultsOf(body);
          const step = results.length;
          const billed = bill.bill('session', body);
          const masked = results.filter((result) => parseMaskedSnippet(toolResultText(result)));
          requests.push({ ...billed, masked: masked.length });
          const usage = anthropicUsageOf(billed);
          return step < STEPS
            ? anthropicAnswer(
                [
                  {
                    toolUse: {
                      id: `toolu_${step}`,
                      name: 'bash',
                      input: { command: bulkyCommand(step), description: 'Print numbers' },
                    },
                  },
                ],
                usage,
              )
            : anthropicAnswer([{ text: FINAL }], usage);
        };
      },
      launch: async ({ root, upstreamUrl, maskingSettings }) => {
        const home = path.join(root, 'home');
        const project = path.join(root, 'project');
        await fs.mkdir(home);
        await fs.mkdir(path.join(project, '.git'), { recursive: true });
        const args = [
          'opencode',
          '--state-dir',
          path.join(root, 'state'),
          '--masking-settings',
          maskingSettings,
        ];
        return runToolmask(
          [...args, 'run', '-m', MODEL, 'Print some numbers.'],
          {
            ...opencodeOfflineEnv(home, project),
            ...marker,
            ANTHROPIC_API_KEY: 'fake-anthropic-key',
            // @ai-sdk/anthropic's own variable (with /v1): where opencode would send its requests.
            ANTHROPIC_BASE_URL: `${upstreamUrl}/v1`,
          },
          project,
        );
      },
    });
    for (const { run } of [masked, unmasked]) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(FINAL);
    }
    expect(processesMarked(marker)).toEqual([]);
    expect([masked.bill.requests, unmasked.bill.requests]).toEqual([STEPS + 1, STEPS + 1]);
    const difference = unmasked.bill.billed - masked.bill.billed;
    const printed = netTokensOf(masked.run.stderr);
    const [maskedRequests, unmaskedRequests] = billedRuns;
    const perRequest = (requests: Billed[] = []) =>
      requests
        .map(({ prompt, read, write, masked }) => `${prompt}/${read}/${write}/${masked}`)
        .join(' ');
    console.log(
      `opencode: billed ${Math.round(masked.bill.billed)} masked, ${Math.round(unmasked.bill.billed)} unmasked (fakes' bills, input-token equivalents); exit line: ${masked.run.stderr.split('\n').find((line) => line.includes('this run'))}\n  masked (prompt/read/write/masked outputs): ${perRequest(maskedRequests)}\n  unmasked: ${perRequest(unmaskedRequests)}`,
    );
    // Nothing but masking breaks the cache: a request that masks nothing new reads the whole prompt
    // of the one before it, in both runs.
    for (const requests of billedRuns) expect(breaksNotFromMasking(requests)).toEqual([]);
    expect(printed).toBeDefined();
    expect(Math.abs(printed! - difference)).toBeLessThanOrEqual(STEPS + 1);
    // Failed with core's warm rule of the morning of 2026-12-03 (docs/benchmarks.md 3.13): nothing
    // was masked until the 16th and last request, which masked 12 outputs (k = 15: the
    // estimator's S of 187,740 and B of 238,059 passed at n̂ = k = 15) and the session ended
    // there: 242,557 against 229,172. With S net of the snippets left in place, and n̂ = k / 2,
    // nothing is masked in these 16 requests and it holds.
    expect(masked.bill.billed).toBeLessThanOrEqual(unmasked.bill.billed);
  }, 600_000);
});
