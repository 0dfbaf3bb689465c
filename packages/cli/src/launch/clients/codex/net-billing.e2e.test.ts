/**
 * Net billing end to end with the real `codex` (`toolmask codex exec`): a scripted session of 15
 * shell calls printing about 9 KB each (under Codex's own 10,000-character cut), against a fake
 * of the Responses API that bills with Anthropic's prefix-cache rules, run masked (the default
 * settings) and with masking off. The exit line's net figure is the fakes' bills' difference as the Responses
 * API reports them (cached tokens only: a write is an input token), within 1% (the real codex
 * does not send the same bodies twice).
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runToolmask } from '@toolmask/test-support/run-toolmask';
import { responsesAnswer, toolOutputsOf } from '@toolmask/test-support/fake-openai-responses';
import { responsesUsageOf, type BillTotals } from '@toolmask/test-support/fake-prefix-bill';
import { maskedAndUnmasked, netTokensOf } from '@toolmask/test-support/net-billing-run';
import { processMarker } from '@toolmask/test-support/marked-processes';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../..');
const BIN = path.join(repo, 'node_modules/.bin');
const STEPS = 15;
const FINAL = 'FINAL ANSWER: done.';
const marker = processMarker();

/** About 9 KB of numbers, different each step. */
const bulkyCommand = (step: number) =>
  `seq ${(step + 1) * 100_000} ${(step + 1) * 100_000 + 1_280}`;

/** A bill at the Responses API's own rules: a cache write is an input token. */
const asReported = (bill: BillTotals) => bill.read * 0.1 + bill.write;

describe.skipIf(!existsSync(path.join(BIN, 'codex')))('toolmask codex: net billing', () => {
  it('says in the exit line by how much masking changed the bill', async () => {
    const { masked, unmasked } = await maskedAndUnmasked({
      rules: 'anthropic',
      arrayPath: ['input'],
      // What OpenAI's cache keys on; Codex's bodies also carry per-request values.
      promptKeys: ['model', 'instructions', 'tools'],
      respond: (bill) => (request) => {
        if (request.path !== '/v1/responses') return { json: { object: 'list', data: [] } };
        const step = toolOutputsOf(request.json).length;
        const usage = responsesUsageOf(bill.bill('session', request.json));
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
    expect(printed).toBeDefined();
    // Two runs of the real codex do not send the very same bodies (measured: the unmasked run's
    // bill moved by some 9% between runs), so the gateway's counterfactual, made from the masked
    // run's own bodies, meets the other run's bill within 1% of it, not to the token.
    expect(Math.abs(printed! - difference)).toBeLessThanOrEqual(asReported(unmasked.bill) * 0.01);
    // Not asserted yet (issue 34, open): this session bills more masked than unmasked under both
    // warm rules. Under 'floor' 140,373 against 109,124; under 'pay-back' (the default) 124,316
    // against 109,124 (2026-12-03): nothing is masked until the 16th and last request, where
    // k = 15 model turns give n̂ = 15 and 10 outputs (S ≈ 0.6 B) pay back at OpenAI's prices,
    // w = 1, r = 0.1, but the session ends there. The exit line above says the loss.
  }, 240_000);
});
