/**
 * Net billing end to end with the real `opencode` (`toolmask opencode run`): a scripted session
 * of 15 `bash` calls printing about 26 KB each (under opencode's own 2,000-line cut), against a
 * chat completions fake that bills with Anthropic's prefix-cache rules, run masked (the default
 * settings) and with masking off. Billed at those rules, the masked run must cost no more than
 * the unmasked one; the exit line's net figure is the fakes' bills' difference as chat
 * completions reports them (cached tokens only: a write is an input token), within 1%.
 */
import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { promptUsageOf, type BillTotals } from '@toolmask/test-support/fake-prefix-bill';
import { openAiAnswer } from '@toolmask/test-support/fake-upstream';
import { maskedAndUnmasked, netTokensOf } from '@toolmask/test-support/net-billing-run';
import { processMarker } from '@toolmask/test-support/marked-processes';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../..');
const CLI = path.join(repo, 'packages/cli/dist/index.js');
const BIN = path.join(repo, 'node_modules/.bin');
const STEPS = 15;
const FINAL = 'FINAL ANSWER: the rows are in.';
const marker = processMarker();

type Body = { messages?: Array<{ role: string }>; tools?: Array<{ function?: { name?: string } }> };

/** A bill at chat completions' own rules: a cache write is an input token. */
const asReported = (bill: BillTotals) => bill.read * 0.1 + bill.write;

describe.skipIf(!existsSync(path.join(BIN, 'opencode')))('toolmask opencode: net billing', () => {
  it('bills no more masked than unmasked, and the exit line says by how much', async () => {
    const { masked, unmasked } = await maskedAndUnmasked({
      rules: 'anthropic',
      arrayPath: ['messages'],
      promptKeys: ['model', 'tools'],
      respond: (bill) => (request) => {
        const body = (request.json ?? {}) as Body;
        // Its title request declares no tools: answered, not billed.
        if (!(body.tools ?? []).some((tool) => tool.function?.name === 'bash')) {
          return openAiAnswer({ content: 'Numbers' });
        }
        const usage = promptUsageOf(bill.bill('session', body));
        const step = (body.messages ?? []).filter((message) => message.role === 'tool').length;
        if (step >= STEPS) return openAiAnswer({ content: FINAL }, usage);
        const first = (step + 1) * 100_000;
        const command = `seq ${first} ${first + 1_649} | sed 's/^/row:     /'`;
        const args = JSON.stringify({ command, description: `step ${step}` });
        return openAiAnswer(
          { toolCalls: [{ id: `call_${step}`, name: 'bash', arguments: args }] },
          usage,
        );
      },
      launch: async ({ root, upstreamUrl, maskingSettings }) => {
        const home = path.join(root, 'home');
        const project = path.join(root, 'project');
        await fs.mkdir(home);
        await fs.mkdir(path.join(project, '.git'), { recursive: true });
        const provider = {
          npm: '@ai-sdk/openai-compatible',
          name: 'Fake',
          options: { baseURL: `${upstreamUrl}/v1`, apiKey: 'fake-openai-key' },
          models: { m1: { name: 'm1' } },
        };
        await fs.writeFile(
          path.join(project, 'opencode.json'),
          JSON.stringify({ provider: { fake: provider }, model: 'fake/m1' }),
        );
        const args = [
          'opencode',
          '--state-dir',
          path.join(root, 'state'),
          '--masking-settings',
          maskingSettings,
        ];
        const child = spawn(process.execPath, [CLI, ...args, 'run', 'Print some rows.'], {
          cwd: project,
          env: {
            PATH: `${BIN}${path.delimiter}${process.env['PATH'] ?? '/usr/bin:/bin'}`,
            ...marker,
            HOME: home,
            PWD: project,
            NO_COLOR: '1',
            OPENCODE_DISABLE_MODELS_FETCH: '1',
            OPENCODE_DISABLE_AUTOUPDATE: '1',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        return { code, stdout, stderr };
      },
    });
    for (const { run } of [masked, unmasked]) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(FINAL);
    }
    expect(masked.bill.requests).toBe(STEPS + 1);
    const printed = netTokensOf(masked.run.stderr);
    const difference = asReported(unmasked.bill) - asReported(masked.bill);
    console.log(
      `opencode: billed ${Math.round(masked.bill.billed)} masked, ${Math.round(unmasked.bill.billed)} unmasked at Anthropic's rules (${Math.round(asReported(masked.bill))} / ${Math.round(asReported(unmasked.bill))} as reported); exit line: ${masked.run.stderr.split('\n').find((line) => line.includes('this run'))}`,
    );
    expect(printed).toBeDefined();
    expect(Math.abs(printed! - difference)).toBeLessThanOrEqual(asReported(unmasked.bill) * 0.01);
    expect(masked.bill.billed).toBeLessThanOrEqual(unmasked.bill.billed);
  }, 240_000);
});
