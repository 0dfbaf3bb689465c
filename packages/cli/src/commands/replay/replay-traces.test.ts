/**
 * Replays real recorded sessions from ../shared/traces (CI has them; elsewhere the suite is skipped
 * with a note). Checks the invariants a real trace must satisfy rather than exact figures.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReplayReport } from '../../render/replay-report.js';
import type { Content } from '../../replay/types.js';
import { runCliCaptured } from '../../test-data/run-cli.js';

const TRACES = join(import.meta.dirname, '..', '..', '..', '..', '..', '..', 'shared', 'traces');
const MINI = join(TRACES, 'mini-swe-agent-gemini3pro');
const available = existsSync(MINI);
if (!available) {
  console.warn(`[toolmask] skipping shared-trace replay tests: ${MINI} is absent`);
}

describe.skipIf(!available)('toolmask replay on shared traces', () => {
  it('replays one trace: one request per model turn, figures consistent', async () => {
    const file = join(
      MINI,
      readdirSync(MINI)
        .filter((name) => name.endsWith('.json'))
        .sort()[0]!,
    );
    const run = await runCliCaptured(['replay', '--json', '--compare', file]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as ReplayReport;
    for (const strategy of report.strategies) {
      for (const row of strategy.requests) {
        expect(row.cachedTokens).toBeLessThanOrEqual(row.contextTokens);
        expect(row.billedTokens).toBeCloseTo(row.contextTokens - 0.9 * row.cachedTokens);
      }
    }
    const [none] = report.strategies;
    expect(none!.requests.every((row, index) => index === 0 || !row.cacheCold)).toBe(true);
    expect(none!.summary.cacheBreaks).toBe(0);
  });

  it('replays the traces root: both folders read, sources.json skipped with a warning, exit 0', async () => {
    const run = await runCliCaptured(['replay', '--json', '--strategies', 'none', TRACES]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as ReplayReport;
    const count = (folder: string) =>
      readdirSync(join(TRACES, folder)).filter((name) => name.endsWith('.json')).length;
    const expected = count('mini-swe-agent-gemini3pro') + count('swe-agent-renox134');
    expect(report.sessions).toHaveLength(expected);
    expect(report.inputs.skipped.map((entry) => entry.file)).toEqual([
      join(TRACES, 'sources.json'),
    ]);
    expect(run.stderr).toBe(
      `toolmask: warning: ${join(TRACES, 'sources.json')}: skipped, not a session: expected a JSON array of Content, a gemini-cli chat recording or OpenAI-style chat messages\n` +
        `toolmask: found ${expected} session files in ${TRACES} (1 other skipped)\n`,
    );
  }, 60_000);

  it('outputs show finds a kept output by the call id the trace holds (astropy__astropy-14369#0)', async () => {
    const keep = mkdtempSync(join(tmpdir(), 'toolmask-trace-ids-'));
    try {
      const trace = join(MINI, 'astropy__astropy-14369.json');
      const replay = await runCliCaptured([
        'replay',
        '--keep',
        keep,
        '--protection-threshold',
        '0',
        '--min-prunable',
        '0',
        '--no-protect-latest-turn',
        // Every output masked at once, whatever a break costs: the subject is the ids.
        '--warm-rule',
        'floor',
        trace,
      ]);
      expect(replay.code).toBe(0);
      const contents = JSON.parse(readFileSync(trace, 'utf8')) as Content[];
      const response = contents
        .flatMap((content) => content.parts ?? [])
        .find((part) => part.functionResponse?.id === 'astropy__astropy-14369#0')!.functionResponse!
        .response as { output: string };
      const show = await runCliCaptured([
        'outputs',
        'show',
        'astropy__astropy-14369#0',
        '--project',
        join(keep, 'toolmask'),
      ]);
      expect(show).toEqual({ code: 0, stdout: response.output, stderr: '' });
    } finally {
      rmSync(keep, { recursive: true, force: true });
    }
  });

  it('chains traces with --concat: cold task starts, masking pays off', async () => {
    const files = readdirSync(MINI)
      .filter((name) => name.endsWith('.json'))
      .sort()
      .slice(0, 6)
      .map((name) => join(MINI, name));
    const run = await runCliCaptured(['replay', '--json', '--compare', '--concat', '3', ...files]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as ReplayReport;
    expect(report.sessions).toHaveLength(2);
    expect(report.sessions[0]!.taskLabels).toHaveLength(3);
    const [none, toolmask] = report.strategies;
    const coldStarts = none!.requests.filter((row) => row.cacheCold);
    expect(coldStarts.map((row) => `${row.session}/${row.task}`)).toEqual([
      'replay-1/0',
      'replay-1/1',
      'replay-1/2',
      'replay-2/0',
      'replay-2/1',
      'replay-2/2',
    ]);
    expect(toolmask!.summary.peakContextTokens).toBeLessThan(none!.summary.peakContextTokens);

    const warm = await runCliCaptured([
      'replay',
      '--json',
      '--strategies',
      'none',
      '--concat',
      '3',
      '--warm-task-starts',
      ...files,
    ]);
    const warmReport = JSON.parse(warm.stdout) as ReplayReport;
    expect(warmReport.strategies[0]!.requests.filter((row) => row.cacheCold)).toHaveLength(2);
    expect(warmReport.strategies[0]!.summary.billedTokens).toBeLessThan(none!.summary.billedTokens);
  });
});
