import { Volume, createFsFromVolume } from 'memfs';
import { describe, expect, it } from 'vitest';
import { resolveToolOutputMaskingConfig } from '../../config/toolOutputMaskingSettings.js';
import { createFileToolOutputStore, type StoreFileSystem } from '../../storage/toolOutputStore.js';
import { estimateFunctionResponseTokens } from '../../utils/tokenCalculation.js';
import { formatMaskedSnippet } from '../maskedSnippet.js';
import type { Content, MaskingHost } from '../maskingTypes.js';
import { ToolOutputMaskingService } from '../toolOutputMaskingService.js';
import { snippetTokensFloor } from './snippetFloor.js';
import { shellStep } from '../../test-utils/maskingHarness.js';

/** A deterministic generator (mulberry32). */
function randomOf(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return (((value ^ (value >>> 14)) >>> 0) / 2 ** 32) * below;
  };
}

/** Pieces whose estimates differ most: quotes and blanks cost nothing after each other. */
const PIECES = ['"', '\\', ' ', '  ', '\n', '\r', '\t', '7', 'Q', 'a', ',', '{', 'é', '中', '😀'];
PIECES.push('\ud800', '\udc00', 'def f(x):', '&quot;', '<tag>', '0'.repeat(9));

function text(random: (below: number) => number, maxPieces: number): string {
  let result = '';
  const count = Math.floor(random(maxPieces));
  for (let index = 0; index < count; index++) result += PIECES[Math.floor(random(PIECES.length))];
  return result;
}

const HEX = '0123456789abcdef';

describe('snippetTokensFloor', () => {
  it('is never above the estimate of a snippet with any preview', () => {
    const random = randomOf(30);
    for (let round = 0; round < 3_000; round++) {
      let hash = '';
      for (let digit = 0; digit < 16; digit++) hash += HEX[Math.floor(random(16))];
      const prefix = `/tmp/${text(random, 4)}/tool.call-${round}.`;
      const note = random(2) < 1 ? { note: text(random, 6) || 'n' } : {};
      const fields = {
        lines: Math.floor(random(100_000)),
        bytes: Math.floor(random(10_000_000)),
        ...note,
      };
      const readToolName = random(2) < 1 ? 'mcp__toolmask__read_tool_output' : undefined;
      const searchToolName = random(2) < 1 ? 'search_tool_outputs' : undefined;
      const snippet = formatMaskedSnippet(
        { ...fields, filePath: `${prefix}${hash}.txt`, preview: text(random, 40) },
        readToolName,
        searchToolName,
      );
      const floor = snippetTokensFloor(
        estimateFunctionResponseTokens,
        { ...fields, filePath: `${prefix}${hash}.txt` },
        readToolName,
        searchToolName,
      );
      expect(floor).toBeLessThanOrEqual(estimateFunctionResponseTokens({ output: snippet }));
    }
  });

  it('is close to the estimate of a snippet with a short preview', () => {
    const fields = { lines: 12, bytes: 340 };
    const snippet = formatMaskedSnippet({
      ...fields,
      filePath: '/tmp/s/run_shell_command.c1.0123456789abcdef.txt',
      preview: 'ok',
    });
    const floor = snippetTokensFloor(
      estimateFunctionResponseTokens,
      { ...fields, filePath: '/tmp/s/run_shell_command.c1.0123456789abcdef.txt' },
      undefined,
      undefined,
    ) as number;
    const estimate = estimateFunctionResponseTokens({ output: snippet });
    expect(floor).toBeGreaterThan(estimate - 6);
  });

  it('has no floor for another estimator, even one that gives the same figures', () => {
    const same = (response: unknown) => estimateFunctionResponseTokens(response);
    const fields = { lines: 1, bytes: 1, filePath: '/tmp/a.0123456789abcdef.txt' };
    expect(snippetTokensFloor(same, fields, undefined, undefined)).toBeUndefined();
  });
});

/** Outputs of every size around the worth rule's threshold: most small ones are not worth it. */
function historyOfSizes(): Content[] {
  const history: Content[] = [{ role: 'user', parts: [{ text: 'fix the bug' }] }];
  const random = randomOf(7);
  for (let call = 0; call < 120; call++) {
    const id = `call-${call}`;
    const lineCount = Math.floor(random(call < 100 ? 12 : 200)) + 1;
    const lines = Array.from({ length: lineCount }, (_, line) => `${text(random, 6)} ${line}`);
    const commands = ['cat a.py', 'pytest -q', 'grep -n foo *.py', 'ls', 'python run.py'];
    const command = commands[call % commands.length] as string;
    history.push(...shellStep(id, command, `Output: ${lines.join('\n')}\nExit Code: ${call % 2}`));
  }
  history.push({ role: 'model', parts: [{ text: 'done' }] });
  return history;
}

describe('a pass with the floor', () => {
  it('masks and skips what a pass that builds every snippet does', async () => {
    const pass = async (estimate: ((response: unknown) => number) | undefined) => {
      const service = new ToolOutputMaskingService({
        store: createFileToolOutputStore({
          fs: createFsFromVolume(new Volume()) as unknown as StoreFileSystem,
        }),
        _internal: {
          clock: () => 1_000,
          ...(estimate ? { tuning: { estimateResponseTokens: estimate } } : {}),
        },
      });
      const host: MaskingHost = {
        getToolOutputMaskingConfig: async () =>
          resolveToolOutputMaskingConfig({
            warmRule: 'floor',
            toolProtectionThreshold: 100,
            minPrunableTokensThreshold: 100,
          }),
        getSessionId: () => 'session-a',
        storage: { getProjectTempDir: () => '/project-temp' },
      };
      return service.mask(historyOfSizes(), host);
    };
    const withFloor = await pass(undefined);
    const withoutFloor = await pass((response) => estimateFunctionResponseTokens(response));
    expect(withFloor.maskedCount).toBeGreaterThan(0);
    expect(withFloor.maskedCount).toBeLessThan(100);
    expect(withFloor.newHistory).toEqual(withoutFloor.newHistory);
    expect(withFloor.maskedCount).toBe(withoutFloor.maskedCount);
  });
});
