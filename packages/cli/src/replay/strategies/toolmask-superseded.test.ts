/**
 * A replay shows, per masked output, whether the session had since replaced it (superseded:
 * read again, edited, run again): in each request's row (`maskedOutputs`, in `--json`), in the
 * summary (`outputsSuperseded`, "of which superseded") and in `--verbose`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveToolOutputMaskingConfig, type Content } from '@toolmask/core';
import { afterAll, describe, expect, it } from 'vitest';
import { replaySessions } from '../engine.js';
import { createNoneStrategy } from './none.js';
import { createToolmaskStrategy } from './toolmask.js';
import { buildReplayReport } from '../../render/replay-report.js';
import { createPalette } from '../../render/color.js';
import { summaryRows } from '../../render/summary-table.js';
import { renderReplayText } from '../../commands/replay/render-replay-text.js';
import type { ReplaySession } from '../types.js';

const work = mkdtempSync(join(tmpdir(), 'toolmask-superseded-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const lines = (count: number, tag: string) =>
  Array.from(
    { length: count },
    (_, index) => `${tag} line ${index}: value_${index} = ${index}`,
  ).join('\n');

function step(id: string, command: string, tag: string): Content[] {
  return [
    {
      role: 'model',
      parts: [{ functionCall: { id, name: 'run_shell_command', args: { command } } }],
    },
    {
      role: 'user',
      parts: [
        {
          functionResponse: {
            id,
            name: 'run_shell_command',
            response: { output: `Output: ${lines(200, tag)}` },
          },
        },
      ],
    },
  ];
}

/** Two tasks: the first reads a.py twice and runs the tests twice; the second starts cold. */
const session: ReplaySession = {
  id: 'superseded',
  label: 'superseded',
  tasks: [
    {
      label: 'one',
      contents: [
        { role: 'user', parts: [{ text: 'fix the bug' }] },
        ...step('c1', 'cat a.py', 'first'),
        ...step('c2', 'pytest -q', 'second'),
        ...step('c3', 'nl -ba a.py', 'third'),
        ...step('c4', 'pytest -q', 'fourth'),
        { role: 'model', parts: [{ text: 'done' }] },
      ],
    },
    {
      label: 'two',
      contents: [
        { role: 'user', parts: [{ text: 'next task' }] },
        { role: 'model', parts: [{ text: 'ok' }] },
      ],
    },
  ],
};

describe('toolmask replay: superseded outputs', () => {
  it('lists each masked output with whether it was superseded, and counts them', async () => {
    // Everything fits in the window: only the superseded outputs are masked, at the cold start.
    const config = resolveToolOutputMaskingConfig({
      toolProtectionThreshold: 100_000,
      coldCacheProtectionThreshold: 100_000,
      minPrunableTokensThreshold: 100_000,
    });
    const result = await replaySessions(
      [session],
      [createNoneStrategy(), createToolmaskStrategy({ config, projectTempDir: work })],
    );
    const [none, toolmask] = result.strategies;
    expect(none!.summary.outputsSuperseded).toBeUndefined();
    expect(toolmask!.summary.outputsMasked).toBe(2);
    expect(toolmask!.summary.outputsSuperseded).toBe(2);
    const rows = toolmask!.requests.filter((row) => row.maskedOutputs);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.cacheCold).toBe(true);
    expect(rows[0]!.maskedOutputs).toEqual([
      {
        toolName: 'run_shell_command',
        callId: 'c1',
        tokensBefore: expect.any(Number),
        tokensAfter: expect.any(Number),
        superseded: { reason: 'read-again', callId: 'c3' },
      },
      {
        toolName: 'run_shell_command',
        callId: 'c2',
        tokensBefore: expect.any(Number),
        tokensAfter: expect.any(Number),
        superseded: { reason: 'rerun', callId: 'c4' },
      },
    ]);

    const report = buildReplayReport(result, {
      paths: ['superseded.json'],
      builtinExample: false,
      concat: 2,
      rejected: [],
      skipped: [],
      taskLabels: new Map([['superseded', ['one', 'two']]]),
      settings: { toolmask: config },
    });
    expect(summaryRows(report.strategies.map((strategy) => strategy.summary))).toContainEqual({
      label: '  of which superseded',
      cells: ['', '2'],
    });
    const text = renderReplayText(report, {
      palette: createPalette(false),
      chart: false,
      verbose: true,
    });
    expect(text).toMatch(
      /^ {4}- run_shell_command c1: [\d,]+ -> [\d,]+ tokens, superseded: the file was read again later \(call c3\)$/m,
    );
    expect(text).toMatch(/, superseded: the same command ran again later \(call c4\)$/m);
  });
});
