/**
 * Net billing end to end with the real `codex` (`toolmask codex exec`): a scripted session of 15
 * shell calls printing about 9 KB each (under Codex's own 10,000-character cut), against a fake
 * of the Responses API that bills with Anthropic's prefix-cache rules, run masked (the default
 * settings) and with masking off. The masked run bills no more than the unmasked one, and the exit
 * line's net figure is the fakes' bills' difference as the Responses API reports them (cached
 * tokens only: a write is an input token), within 1% (the real codex does not send the same
 * bodies twice).
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runToolmask } from '@toolmask/test-support/run-toolmask';
import { responsesAnswer, toolOutputsOf } from '@toolmask/test-support/fake-openai-responses';
import {
  responsesUsageOf,
  type BillTotals,
  type PromptBill,
} from '@toolmask/test-support/fake-prefix-bill';
import {
  breaksNotFromMasking,
  maskedAndUnmasked,
  netTokensOf,
} from '@toolmask/test-support/net-billing-run';
import { processMarker } from '@toolmask/test-support/marked-processes';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../..');
const BIN = path.join(repo, 'node_modules/.bin');
const STEPS = 15;
const FINAL = 'FINAL ANSWER: done.';
const marker = processMarker();

/** About 9 KB of numbers, different each step. */
const bulkyCommand = (step: number) =>
  `seq ${(step + 1) * 100_000} ${(step + 1) * 100_000 + 1_280}`;

/** How the fake billed one request, and how many masked outputs its body held. */
type Billed = PromptBill & { masked: number };
const MASKED = '<tool_output_masked ';

/** A bill at the Responses API's own rules: a cache write is an input token. */
const asReported = (bill: BillTotals) => bill.read * 0.1 + bill.write;

describe.skipIf(!existsSync(path.join(BIN, 'codex')))('toolmask codex: net billing', () => {
  it('says in the exit line by how much masking changed the bill', async () => {
    const billedRuns: Billed[][] = [];
    const { masked, unmasked } = await maskedAndUnmasked({
      rules: 'anthropic',
      arrayPath: ['input'],
      // What OpenAI's cache keys on; Codex's bodies also carry per-request values.
      promptKeys: ['model', 'instructions', 'tools'],
      respond: (bill) => {
        const requests: Billed[] = [];
        billedRuns.push(requests);
        return (request) => {
          if (request.path !== '/v1/responses') return { json: { object: 'list', data: [] } };
          const step = toolOutputsOf(request.json).length;
          const billed = bill.bill('session', request.json);
          requests.push({
            ...billed,
            masked: request.raw.toString('utf8').split(MASKED).length - 1,
          });
          const usage = responsesUsageOf(billed);
          return step < STEPS
            ? responsesAnswer(
                [
                  {
                    functionCall: {
                      callId: `call_${step}`,
                      name: 'exec_command',
                      arguments: { cmd: bulkyCommand(step) },
                    },
                  },
                ],
                usage,
              )
            : responsesAnswer([{ text: FINAL }], usage);
        };
      },
      launch: async ({ root, upstreamUrl, maskingSettings }) => {
        const home = path.join(root, 'home');
        const project = path.join(root, 'project');
        await fs.mkdir(path.join(home, '.codex'), { recursive: true });
        await fs.mkdir(project);
        await fs.writeFile(
          path.join(home, '.codex', 'config.toml'),
          [
            'model = "gpt-5-codex"',
            'model_provider = "fake"',
            '[model_providers.fake]',
            'name = "Fake"',
            `base_url = "${upstreamUrl}/v1"`,
            'env_key = "FAKE_KEY"',
            '',
          ].join('\n'),
        );
        const args = [
          'codex',
          '--state-dir',
          path.join(root, 'state'),
          '--masking-settings',
          maskingSettings,
        ];
        return runToolmask(
          [...args, 'exec', '--skip-git-repo-check', 'Print some numbers.'],
          {
            PATH: `${BIN}${path.delimiter}${process.env['PATH'] ?? '/usr/bin:/bin'}`,
            ...marker,
            HOME: home,
            FAKE_KEY: 'fake-openai-key',
            NO_COLOR: '1',
          },
          project,
        );
      },
    });
    for (const { run } of [masked, unmasked]) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe(FINAL);
    }
    expect(masked.bill.requests).toBe(STEPS + 1);
    const printed = netTokensOf(masked.run.stderr);
    const difference = asReported(unmasked.bill) - asReported(masked.bill);
    console.log(
      `codex: billed ${Math.round(masked.bill.billed)} masked, ${Math.round(unmasked.bill.billed)} unmasked at Anthropic's rules (${Math.round(asReported(masked.bill))} / ${Math.round(asReported(unmasked.bill))} as reported); exit line: ${masked.run.stderr.split('\n').find((line) => line.includes('this run'))}`,
    );
    // Nothing but masking breaks the cache: a request that masks nothing new reads the whole prompt
    // of the one before it, in both runs (issue 34: before the read-back tool was declared from the
    // first request, it could join the second and re-bill the whole prompt).
    for (const requests of billedRuns) expect(breaksNotFromMasking(requests)).toEqual([]);
    expect(printed).toBeDefined();
    // Two runs of the real codex do not send the very same bodies (ids, and each output's "Wall
    // time" line), so the gateway's counterfactual, made from the masked run's own bodies, meets
    // the other run's bill within 1% of it, not to the token. (The 9% runs once differed by was
    // the read-back tool joining the second request: see the loop above.)
    expect(Math.abs(printed! - difference)).toBeLessThanOrEqual(asReported(unmasked.bill) * 0.01);
    // Billed masked <= unmasked (issue 34). Nothing is masked: the 16th and last request could mask
    // 10 outputs, and S / B passed the pay-back test (n̂ = k = 15 at OpenAI's prices) until S was
    // counted net of the snippets left in place (core's snippetCost.ts) and n̂ became k / 2; that
    // break billed 124,690 against 109,124. Requests 1–15 bill alike in both runs; the two runs' bodies still differ by
    // a few characters (each output's "Wall time"), hence a tolerance of 0.1% (bench's own).
    expect(masked.bill.billed).toBeLessThanOrEqual(unmasked.bill.billed * 1.001);
  }, 240_000);
});
