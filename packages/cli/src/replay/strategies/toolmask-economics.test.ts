/**
 * The replayed toolmask trigger weighs the provider's cache as the gateway's front for that
 * provider does: under Anthropic's write premium a warm pass needs a larger batch, so some batch
 * that pays under Gemini's economics is left whole under Anthropic's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CACHE_ECONOMICS, resolveToolOutputMaskingConfig, type Content } from '@toolmask/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createToolmaskStrategy } from './toolmask.js';

const work = mkdtempSync(join(tmpdir(), 'toolmask-economics-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const lines = (count: number, tag: string) =>
  Array.from(
    { length: count },
    (_, index) => `${tag} line ${index}: compiled unit_${index}.o`,
  ).join('\n');

function history(): Content[] {
  const contents: Content[] = [{ role: 'user', parts: [{ text: 'build it' }] }];
  for (let step = 0; step < 4; step++) {
    const id = `call-${step}`;
    contents.push(
      { role: 'model', parts: [{ functionCall: { id, name: 'run_shell_command', args: {} } }] },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id,
              name: 'run_shell_command',
              response: { output: `Output: ${lines(300, `step ${step}`)}` },
            },
          },
        ],
      },
    );
  }
  return contents;
}

async function maskedCount(threshold: number, economics?: keyof typeof CACHE_ECONOMICS) {
  const config = resolveToolOutputMaskingConfig({
    enabled: true,
    toolProtectionThreshold: 0,
    minPrunableTokensThreshold: threshold,
    protectLatestTurn: false,
    // The floor scaled by the write premium is the subject (the pay-back rule: warmBreak.test.ts).
    warmRule: 'floor',
  });
  const strategy = createToolmaskStrategy({
    config,
    projectTempDir: join(work, `${economics ?? 'default'}-${threshold}`),
    ...(economics ? { cacheEconomics: CACHE_ECONOMICS[economics] } : {}),
  });
  const session = await strategy.startSession('s');
  const outcome = await session.mask(history(), { role: 'user', parts: [{ text: 'go on' }] }, {
    cacheLikelyCold: false,
  } as never);
  return outcome.maskedCount;
}

describe('the replayed toolmask trigger and the provider cache', () => {
  it('leaves whole under Anthropic a warm batch that Gemini economics mask', async () => {
    let differs = false;
    for (const threshold of [1_000, 4_000, 8_000, 12_000, 16_000, 20_000, 24_000]) {
      const gemini = await maskedCount(threshold);
      expect(await maskedCount(threshold, 'gemini')).toBe(gemini);
      const anthropic = await maskedCount(threshold, 'anthropic');
      expect(anthropic).toBeLessThanOrEqual(gemini);
      if (anthropic < gemini) differs = true;
    }
    expect(differs).toBe(true);
  });
});
