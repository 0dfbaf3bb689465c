import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { estimateTokenCountSync } from '@toolmask/core';
import { afterAll, describe, expect, it } from 'vitest';
import type { ReplayReport } from '../../render/replay-report.js';
import type { Content } from '../../replay/types.js';
import { recordChat } from '@toolmask/test-support/record-chat';
import { runCliCaptured } from '../../test-data/run-cli.js';

const TEST_DATA = join(import.meta.dirname, '..', '..', 'test-data');
const SMALL = join(TEST_DATA, 'small-session.json');
const work = mkdtempSync(join(tmpdir(), 'toolmask-replay-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const tokens = (content: Content) => estimateTokenCountSync(content.parts ?? []);

async function replayJson(args: string[]): Promise<ReplayReport> {
  const run = await runCliCaptured(['replay', '--json', ...args]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as ReplayReport;
}

describe('toolmask replay on the small fixture (hand-computed)', () => {
  const contents = JSON.parse(readFileSync(SMALL, 'utf8')) as Content[];
  const t = contents.map(tokens);

  it('counts requests, the cached prefix and billed tokens', async () => {
    const report = await replayJson(['--strategies', 'none', SMALL]);
    const rows = report.strategies[0]!.requests;
    // Requests go out before the three model turns: [c0], [c0..c2], [c0..c4].
    expect(rows.map((row) => row.contentCount)).toEqual([1, 3, 5]);
    expect(rows.map((row) => row.contextTokens)).toEqual([
      t[0],
      t[0]! + t[1]! + t[2]!,
      t[0]! + t[1]! + t[2]! + t[3]! + t[4]!,
    ]);
    expect(rows.map((row) => row.cachedTokens)).toEqual([0, t[0], t[0]! + t[1]! + t[2]!]);
    expect(rows[1]!.billedTokens).toBeCloseTo(t[1]! + t[2]! + 0.1 * t[0]!);
    expect(rows[2]!.billedTokens).toBeCloseTo(t[3]! + t[4]! + 0.1 * (t[0]! + t[1]! + t[2]!));
    expect(report.strategies[0]!.summary.cacheBreaks).toBe(0);
  });

  it('prices with --cache-discount', async () => {
    const report = await replayJson(['--strategies', 'none', '--cache-discount', '0.5', SMALL]);
    expect(report.strategies[0]!.requests[1]!.billedTokens).toBeCloseTo(
      t[1]! + t[2]! + 0.5 * t[0]!,
    );
  });

  it('masks with the flags given and keeps the full outputs with --keep', async () => {
    const keep = join(work, 'kept');
    const report = await replayJson([
      '--strategies',
      'none,toolmask',
      '--protection-threshold',
      '0',
      '--min-prunable',
      '0',
      '--warm-rule',
      'floor',
      '--no-protect-latest-turn',
      '--keep',
      keep,
      SMALL,
    ]);
    const [none, toolmask] = report.strategies;
    expect(report.settings.toolmask).toMatchObject({
      toolProtectionThreshold: 0,
      minPrunableTokensThreshold: 0,
      protectLatestTurn: false,
      warmRule: 'floor',
    });
    expect(toolmask!.summary.outputsMasked).toBeGreaterThan(0);
    expect(toolmask!.summary.peakContextTokens).toBeLessThan(none!.summary.peakContextTokens);
    const folder = join(keep, 'toolmask', 'tool-outputs', 'session-replay-1');
    const files = readdirSync(folder).filter((name) => !name.startsWith('.'));
    const saved = files.map((name) => readFileSync(join(folder, name), 'utf8'));
    const shellOutput = (contents[2]!.parts![0]!.functionResponse!.response as { output: string })
      .output;
    expect(saved).toContain(shellOutput);
    const bytes = files.reduce((sum, name) => sum + readFileSync(join(folder, name)).length, 0);
    expect(toolmask!.summary.bytesOffloaded).toBe(bytes);
  });

  it('removes its temporary folder when --keep is not given', async () => {
    // A private TMPDIR (this file runs in its own process) so other replays cannot interfere.
    const privateTmp = join(work, 'tmp');
    mkdirSync(privateTmp);
    const saved = process.env['TMPDIR'];
    process.env['TMPDIR'] = privateTmp;
    try {
      const run = await runCliCaptured([
        'replay',
        '--json',
        '--protection-threshold',
        '0',
        '--min-prunable',
        '0',
        '--warm-rule',
        'floor',
        SMALL,
      ]);
      expect(run.code).toBe(0);
      expect(
        (JSON.parse(run.stdout) as ReplayReport).strategies[1]!.summary.outputsMasked,
      ).toBeGreaterThan(0);
    } finally {
      if (saved === undefined) delete process.env['TMPDIR'];
      else process.env['TMPDIR'] = saved;
    }
    expect(readdirSync(privateTmp)).toEqual([]);
  });
});

describe('toolmask replay --json schema', () => {
  it('has the documented fields and types', async () => {
    const report = await replayJson(['--compare', SMALL]);
    expect(Object.keys(report).sort()).toEqual(
      [
        'generatedBy',
        'inputs',
        'pricing',
        'schemaVersion',
        'sessions',
        'settings',
        'strategies',
      ].sort(),
    );
    expect(report.schemaVersion).toBe(2);
    expect(report.inputs).toEqual({
      paths: [SMALL],
      builtinExample: false,
      concat: 1,
      rejected: [],
      skipped: [],
    });
    expect(report.pricing).toMatchObject({ cacheDiscount: 0.1, warmTaskStarts: false });
    expect(report.settings.geminiCli).toEqual({
      protectionThresholdTokens: 50_000,
      minPrunableThresholdTokens: 30_000,
      protectLatestTurn: true,
    });
    expect(report.sessions).toEqual([
      {
        id: 'replay-1',
        label: 'small-session',
        taskLabels: ['small-session'],
        contentCount: 6,
        requestCount: 3,
      },
    ]);
    expect(report.strategies.map((strategy) => strategy.name)).toEqual([
      'none',
      'toolmask',
      'gemini-cli',
    ]);
    for (const strategy of report.strategies) {
      expect(Object.keys(strategy.summary).sort()).toEqual(
        [
          'billedTokens',
          'bytesOffloaded',
          'cacheBreaks',
          'cachedTokens',
          'failures',
          'outputsMasked',
          'passMs',
          'peakContextTokens',
          'requestCount',
          'strategy',
          'totalInputTokens',
          // toolmask says which outputs it masked, so which were superseded.
          ...(strategy.name === 'toolmask' ? ['outputsSuperseded'] : []),
        ].sort(),
      );
      for (const row of strategy.requests) {
        expect(row).toEqual({
          session: 'replay-1',
          task: 0,
          request: expect.any(Number),
          contentCount: expect.any(Number),
          contextTokens: expect.any(Number),
          cachedTokens: expect.any(Number),
          billedTokens: expect.any(Number),
          cacheCold: expect.any(Boolean),
          cacheBreak: expect.any(Boolean),
          maskedCount: expect.any(Number),
          offloadedBytes: expect.any(Number),
          failures: expect.any(Number),
          passMs: expect.any(Number),
        });
      }
    }
  });
});

describe('toolmask replay on the built-in example', () => {
  it('prints the side-by-side table and chart; masking lowers peak and billed tokens', async () => {
    const run = await runCliCaptured(['replay', '--compare']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(
      /^Replayed the built-in example session: 1 session, [\d,]+ requests/,
    );
    for (const label of [
      'requests',
      'peak context tokens',
      'total input tokens',
      'billed tokens',
      'cache breaks',
      'outputs masked',
      'bytes offloaded',
      'total pass time',
      'context tokens per request',
    ]) {
      expect(run.stdout).toContain(label);
    }
    expect(run.stdout).toMatch(/none\s+toolmask\s+gemini-cli/);
    expect(run.stdout).toMatch(/\d{1,3},\d{3}/); // thousands separators
    expect(run.stdout).not.toContain('\u001b['); // not a TTY: no colors

    const report = await replayJson(['--compare']);
    expect(report.inputs.builtinExample).toBe(true);
    const [none, toolmask, gemini] = report.strategies.map((strategy) => strategy.summary);
    expect(none!.requestCount).toBeGreaterThan(60);
    expect(toolmask!.peakContextTokens).toBeLessThan(none!.peakContextTokens);
    expect(toolmask!.billedTokens).toBeLessThan(none!.billedTokens);
    expect(gemini!.outputsMasked).toBeGreaterThan(0);
  });

  it('the first screen says what a newcomer needs: synthetic session, columns, cache break, where to read more', async () => {
    const run = await runCliCaptured(['replay', '--compare']);
    const lines = run.stdout.split('\n');
    expect(lines[1]).toMatch(/^The built-in example is synthetic: /);
    expect(run.stdout).toMatch(/^none {9}no masking: the history as recorded$/m);
    expect(run.stdout).toMatch(/^gemini-cli {3}the masking built into @google\/gemini-cli-core/m);
    expect(run.stdout).toMatch(/^cache break {2}a request that changes something already sent/m);
    expect(run.stdout).toContain('context tokens per request (77 requests; full height = ');
    expect(run.stdout).toContain('each column shows the largest of 1-2 consecutive requests');
    expect(run.stdout).not.toMatch(/per column/);
    expect(lines.at(-2)).toBe('More: toolmask replay --help, and docs/cli.md');
    expect(existsSync(join(process.cwd(), 'docs', 'cli.md'))).toBe(true);
    // Lines fit the terminal (100 columns here), the chart included.
    expect(lines.filter((line) => line.trimEnd().length > 100)).toEqual([]);
    // A recorded session is not called synthetic.
    const recorded = await runCliCaptured(['replay', SMALL]);
    expect(recorded.stdout).not.toContain('synthetic');
  });

  it('colors only a terminal without NO_COLOR, and prints notices with --verbose', async () => {
    const colored = await runCliCaptured(['replay', '--no-chart'], { isTTY: true });
    expect(colored.stdout).toContain('\u001b[');
    const plain = await runCliCaptured(['replay', '--no-chart'], {
      isTTY: true,
      env: { NO_COLOR: '1' },
    });
    expect(plain.stdout).not.toContain('\u001b[');
    expect(plain.stdout).not.toContain('context tokens per request');
    const verbose = await runCliCaptured(['replay', '--verbose']);
    expect(verbose.stdout).toMatch(/toolmask: \d+ requests changed/);
    expect(verbose.stdout).toMatch(/\| toolmask: masked \d+/);
  });

  it("--verbose prints the size guard's notices as the host would get them", async () => {
    const run = await runCliCaptured(['replay', '--verbose', '--max-output-tokens', '1500']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /\| toolmask: (offloaded \d+ oversized tool outputs? \(over 1,500 tokens\)|masked \d+ tool outputs \(\d+ over 1,500 tokens\)), freed ~[\d,]+ tokens; full outputs in /,
    );
  });
});

describe('toolmask replay inputs and bad input', () => {
  it('replays a gemini-cli chat recording', async () => {
    const file = await recordChat(join(work, 'project'));
    const report = await replayJson(['--strategies', 'none', file]);
    expect(report.strategies[0]!.summary.requestCount).toBe(4);
  });

  it('a file that is not JSON: one line naming it, exit 2', async () => {
    const file = join(work, 'broken.json');
    writeFileSync(file, '{ nope');
    const run = await runCliCaptured(['replay', file]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(new RegExp(`^toolmask: ${file}: not valid JSON`));
  });

  it('a file in neither format: one line, exit 2', async () => {
    const file = join(work, 'object.json');
    writeFileSync(file, '{"contents": []}');
    const run = await runCliCaptured(['replay', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `toolmask: ${file}: not a session: expected a JSON array of Content, a gemini-cli chat recording or OpenAI-style chat messages\n`,
    );
  });

  it('a directory with a bad file: the others are replayed, the bad one listed, exit 2', async () => {
    const folder = join(work, 'mixed');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.json'), readFileSync(SMALL));
    writeFileSync(join(folder, 'b.json'), '[1, 2');
    const run = await runCliCaptured(['replay', '--json', '--strategies', 'none', folder]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`toolmask: ${join(folder, 'b.json')}: not valid JSON`);
    expect(run.stderr).toContain('1 input not replayed');
    const report = JSON.parse(run.stdout) as ReplayReport;
    expect(report.sessions.map((session) => session.label)).toEqual(['a']);
    expect(report.inputs.rejected).toEqual([
      { file: join(folder, 'b.json'), reason: expect.stringMatching(/^not valid JSON/) },
    ]);
  });

  it('a folder tree: subfolders read, a non-session file skipped with one warning, the count said, exit 0', async () => {
    const folder = join(work, 'tree');
    mkdirSync(join(folder, 'one'), { recursive: true });
    mkdirSync(join(folder, 'two'));
    writeFileSync(join(folder, 'one', 'a.json'), readFileSync(SMALL));
    writeFileSync(join(folder, 'two', 'b.json'), readFileSync(SMALL));
    writeFileSync(join(folder, 'sources.json'), '{"where": "elsewhere"}');
    const run = await runCliCaptured(['replay', '--json', '--strategies', 'none', folder]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      `toolmask: warning: ${join(folder, 'sources.json')}: skipped, not a session: expected a JSON array of Content, a gemini-cli chat recording or OpenAI-style chat messages\n` +
        `toolmask: found 2 session files in ${folder} (1 other skipped)\n`,
    );
    const report = JSON.parse(run.stdout) as ReplayReport;
    expect(report.sessions.map((session) => session.label)).toEqual(['a', 'b']);
    expect(report.inputs.skipped).toEqual([
      { file: join(folder, 'sources.json'), reason: expect.stringMatching(/^not a session/) },
    ]);
    const flat = await runCliCaptured(['replay', '--no-recursive', '--strategies', 'none', folder]);
    expect(flat.code).toBe(2);
    expect(flat.stderr).toContain(
      'the directory has no session files (.json or .jsonl, subfolders not read)',
    );
  });

  it('a missing path and an empty folder are bad input', async () => {
    const missing = await runCliCaptured(['replay', join(work, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `toolmask: ${join(work, 'nope.json')}: no such file or directory\n`,
    );
    mkdirSync(join(work, 'empty'));
    const empty = await runCliCaptured(['replay', join(work, 'empty')]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe(
      `toolmask: ${join(work, 'empty')}: the directory has no session files (.json or .jsonl, subfolders included)\n`,
    );
  });

  it('bad settings name the key and the file, exit 2', async () => {
    const settings = join(work, 'settings.json');
    writeFileSync(
      settings,
      '{\n  // JSONC is fine\n  "experimental": { "toolOutputMasking": { "toolProtectionThreshold": "big" } }\n}\n',
    );
    const run = await runCliCaptured(['replay', '--settings', settings, SMALL]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('toolProtectionThreshold');
    expect(run.stderr).toContain(settings);
  });

  it('reads --settings as the installed pass does: trailing commas are an error', async () => {
    const settings = join(work, 'trailing.json');
    writeFileSync(settings, '{ "experimental": { "toolOutputMasking": { "enabled": true, } } }\n');
    const run = await runCliCaptured(['replay', '--settings', settings, SMALL]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${settings}: not valid JSON`);
  });

  it('warns about a misspelled key in --settings, naming the file and the closest key (issue 16, item 5)', async () => {
    const settings = join(work, 'typo.json');
    writeFileSync(
      settings,
      '{ "experimental": { "toolOutputMasking": { "toolProtectionThresold": 1000, "maxOutputTokens": 5000 } } }\n',
    );
    const run = await runCliCaptured(['replay', '--settings', settings, '--json', SMALL]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `toolmask: warning: Unknown setting experimental.toolOutputMasking.toolProtectionThresold in ${settings} (ignored); did you mean toolProtectionThreshold?\n`,
    );
    const report = JSON.parse(run.stdout) as { settings: { toolmask: Record<string, unknown> } };
    expect(report.settings.toolmask['maxOutputTokens']).toBe(5000);
  });

  it('refuses a --settings that is not a regular file, or larger than 1 MB (issue 15, item 5)', async () => {
    const folder = join(work, 'a-folder.json');
    mkdirSync(folder, { recursive: true });
    const notAFile = await runCliCaptured(['replay', '--settings', folder, SMALL]);
    expect(notAFile.code).toBe(2);
    expect(notAFile.stderr).toContain(`${folder}: it is not a regular file`);
    const huge = join(work, 'huge.json');
    writeFileSync(huge, `/*${'x'.repeat(2 * 1024 * 1024)}*/ {}`);
    const tooLarge = await runCliCaptured(['replay', '--settings', huge, SMALL]);
    expect(tooLarge.code).toBe(2);
    expect(tooLarge.stderr).toContain('larger than the 1 MB a settings file may be');
  });

  it('reads settings from a settings.json with comments', async () => {
    const settings = join(work, 'good-settings.json');
    writeFileSync(
      settings,
      '{\n  /* tuned */ "experimental": { "toolOutputMasking": { "minPrunableTokensThreshold": 1234 } },\n' +
        '  "contextManagement": { "tools": { "outputMasking": { "protectionThresholdTokens": 777 } } }\n}\n',
    );
    const report = await replayJson([
      '--compare',
      '--settings',
      settings,
      '--protection-threshold',
      '42',
      SMALL,
    ]);
    expect(report.settings.toolmask).toMatchObject({
      minPrunableTokensThreshold: 1234,
      toolProtectionThreshold: 42,
    });
    expect(report.settings.geminiCli).toMatchObject({ protectionThresholdTokens: 777 });
  });

  it('--warm-rule sets the warm rule; a value that is none of its values names them, exit 2', async () => {
    for (const rule of ['floor', 'pay-back']) {
      const report = await replayJson(['--strategies', 'toolmask', '--warm-rule', rule, SMALL]);
      expect(report.settings.toolmask).toMatchObject({ warmRule: rule });
    }
    const run = await runCliCaptured(['replay', '--warm-rule', 'payback', SMALL]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'experimental.toolOutputMasking.warmRule in the command-line flags: expected one of "pay-back", "floor", got the string "payback"',
    );
  });

  it('bad usage exits 2', async () => {
    for (const args of [
      ['replay', '--concat', '0', SMALL],
      ['replay', '--cache-discount', '2', SMALL],
      ['replay', '--strategies', 'magic', SMALL],
      ['replay', '--no-such-flag'],
      ['frobnicate'],
    ]) {
      const run = await runCliCaptured(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).not.toBe('');
    }
  });

  it('writes an HTML report', async () => {
    const file = join(work, 'report.html');
    const run = await runCliCaptured(['replay', '--compare', '--report', file, SMALL]);
    expect(run.code).toBe(0);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toContain('<svg');
  });
});

describe('toolmask --help', () => {
  it('every command has help with examples', async () => {
    for (const args of [
      [],
      ['replay'],
      ['outputs'],
      ['outputs', 'ls'],
      ['outputs', 'show'],
      ['outputs', 'gc'],
    ]) {
      const run = await runCliCaptured([...args, '--help']);
      expect(run.code, args.join(' ')).toBe(0);
      expect(run.stdout, args.join(' ')).toContain('Examples:');
    }
  });

  it('names documentation that exists where it runs (docs/cli.md in a checkout), by its absolute path', async () => {
    const run = await runCliCaptured(['--help']);
    const named = /^Documentation: (.+)$/m.exec(run.stdout)?.[1];
    expect(named).toBe(join(process.cwd(), 'docs', 'cli.md'));
    expect(existsSync(named!)).toBe(true);
  });
});
