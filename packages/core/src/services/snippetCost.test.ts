import { describe, expect, it } from 'vitest';
import { harness, memoryFs, memoryStore } from '../test-utils/maskingHarness.js';
import type { Content, Part } from './maskingTypes.js';
import { SNIPPET_CHARS, keptTokensOf, responseChars } from './snippetCost.js';
import { estimateFunctionResponseTokens } from '../utils/tokenCalculation.js';

const outputPart = (output: string): Part => ({
  functionResponse: { id: 'c', name: 'run_shell_command', response: { output } },
});

const numbers = (call: number) =>
  Array.from({ length: 1_281 }, (_, index) => (call + 1) * 100_000 + index).join('\n');
const warnings = () =>
  Array.from(
    { length: 280 },
    (_, index) => `src/module${index % 37}/file${index}.ts: warning: unused variable 'v${index}'`,
  ).join('\n');

describe('snippetCost', () => {
  it('counts about the characters of the response as JSON', () => {
    for (const response of [
      { output: 'a line\nanother' },
      { stdout: 'x'.repeat(500), exitCode: 0, files: ['a.ts', 'b.ts'] },
      { nested: { deeper: { text: 'words '.repeat(40) } } },
    ]) {
      const json = JSON.stringify(response).length;
      expect(Math.abs(responseChars(response) - json)).toBeLessThanOrEqual(json * 0.1 + 4);
    }
  });

  it('keeps all of an output no longer than a snippet, a share of a longer one', () => {
    expect(keptTokensOf(outputPart('x'.repeat(400)), 100)).toBe(100);
    const long = outputPart('x'.repeat(SNIPPET_CHARS * 10));
    // A tenth of its characters (and the JSON around them).
    expect(keptTokensOf(long, 5_000)).toBeGreaterThanOrEqual(495);
    expect(keptTokensOf(long, 5_000)).toBeLessThanOrEqual(500);
    expect(keptTokensOf(long, 0)).toBe(0);
  });

  it('reads a part that throws as one character a token, without throwing', () => {
    const hostile = {
      get functionResponse(): never {
        throw new Error('no');
      },
    } as unknown as Part;
    expect(keptTokensOf(hostile, 3_000)).toBe(SNIPPET_CHARS);
  });

  it("is within 30% of the real snippets' estimates, for numbers and for prose", async () => {
    for (const make of [numbers, warnings]) {
      const history: Content[] = [{ role: 'user', parts: [{ text: 'go' }] }];
      for (let call = 0; call < 6; call++) {
        const id = `call_${call}`;
        history.push({
          role: 'model',
          parts: [
            { functionCall: { id, name: 'run_shell_command', args: { command: `c${call}` } } },
          ],
        });
        history.push({ role: 'user', parts: [{ ...outputPart(make(call)) }] });
      }
      const { service, host } = harness(memoryStore(memoryFs()), { toolProtectionThreshold: 0 });
      const result = await service.mask(history, host);
      expect(result.maskedCount).toBeGreaterThan(0);
      history.forEach((entry, index) => {
        const before = entry.parts?.[0]?.functionResponse?.response;
        const after = result.newHistory[index]?.parts?.[0]?.functionResponse?.response;
        if (!before || after === before) return;
        const real = estimateFunctionResponseTokens(after);
        const predicted = keptTokensOf(entry.parts![0]!, estimateFunctionResponseTokens(before));
        expect(Math.abs(predicted - real)).toBeLessThanOrEqual(real * 0.3);
      });
    }
  });
});
