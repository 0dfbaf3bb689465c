/**
 * Net billing end to end with the real `claude` (`toolmask claude -p`): a scripted session of 15
 * Bash calls printing about 26 KB each, against a fake that bills with Anthropic's prefix-cache
 * rules (reads 0.1x, writes 1.25x), run masked (the default settings) and with masking off. The
 * masked run must bill no more than the unmasked one, and its exit line's net figure must be the
 * fakes' own bills' difference (to the rounding of the two runs' token counts: one per request).
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runToolmask } from '@toolmask/test-support/run-toolmask';
import { anthropicAnswer, toolResultsOf } from '@toolmask/test-support/fake-anthropic';
import { anthropicUsageOf } from '@toolmask/test-support/fake-prefix-bill';
import { maskedAndUnmasked, netTokensOf } from '@toolmask/test-support/net-billing-run';
import { processMarker } from '@toolmask/test-support/marked-processes';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../..');
const BIN = path.join(repo, 'node_modules/.bin');
const STEPS = 15;
const FINAL = 'FINAL ANSWER: done.';
const marker = processMarker();

/** About 26 KB of numbers (under Claude Code's own 30,000-character cut), different each step. */
const bulkyCommand = (step: number) =>
  `seq ${(step + 1) * 100_000} ${(step + 1) * 100_000 + 3_700}`;

describe.skipIf(!existsSync(path.join(BIN, 'claude')))('toolmask claude: net billing', () => {
  it('bills no more masked than unmasked, and the exit line says by how much', async () => {
    const { masked, unmasked } = await maskedAndUnmasked({
      rules: 'anthropic',
      arrayPath: ['messages'],
      respond: (bill) => (request) => {
        if (request.path !== '/v1/messages') return { status: 404, json: { type: 'error' } };
        const body = request.json as { tools?: Array<{ name: string }> };
        if (!body.tools?.some((tool) => tool.name === 'Bash'))
          return anthropicAnswer([{ text: 'ok' }]);
        const step = toolResultsOf(body).length;
        const usage = anthropicUsageOf(bill.bill('session', body));
        return step < STEPS
          ? anthropicAnswer(
              [
                {
                  toolUse: {
                    id: `toolu_${step}`,
                    name: 'Bash',
                    input: { command: bulkyCommand(step), description: 'Print numbers' },
                  },
                },
              ],
              usage,
            )
          : anthropicAnswer([{ text: FINAL }], usage);
      },
      launch: async ({ root, upstreamUrl, maskingSettings }) => {
        const home = path.join(root, 'home');
        const project = path.join(root, 'project');
        await fs.mkdir(path.join(home, '.claude'), { recursive: true });
        await fs.mkdir(project);
        const args = [
          'claude',
          '--state-dir',
          path.join(root, 'state'),
          '--masking-settings',
          maskingSettings,
        ];
        return runToolmask(
          [...args, '-p', 'Print some numbers.', '--allowedTools', 'Bash'],
          {
            PATH: `${BIN}${path.delimiter}${process.env['PATH'] ?? '/usr/bin:/bin'}`,
            ...marker,
            HOME: home,
            NO_COLOR: '1',
            ANTHROPIC_BASE_URL: upstreamUrl,
            ANTHROPIC_API_KEY: 'fake-anthropic-key',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            DISABLE_AUTOUPDATER: '1',
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
    const difference = unmasked.bill.billed - masked.bill.billed;
    const printed = netTokensOf(masked.run.stderr);
    console.log(
      `claude: billed ${Math.round(masked.bill.billed)} masked, ${Math.round(unmasked.bill.billed)} unmasked (fakes' bills, input-token equivalents); exit line: ${masked.run.stderr.split('\n').find((line) => line.includes('this run'))}`,
    );
    expect(printed).toBeDefined();
    expect(Math.abs(printed! - difference)).toBeLessThanOrEqual(STEPS + 1);
    expect(masked.bill.billed).toBeLessThanOrEqual(unmasked.bill.billed);
  }, 240_000);
});
