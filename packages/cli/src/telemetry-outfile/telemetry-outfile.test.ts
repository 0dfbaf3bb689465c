/**
 * Reading gemini-cli's telemetry outfile: pretty-printed values back to back, split wherever a
 * read ends (inside strings, after backslashes, inside multi-byte characters), bounded per value,
 * followed as the file grows and read again when it is replaced; folded into per-request records
 * (main agent only, each pass on the request after it) and per-session metric figures.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ConcatenatedJsonScanner } from './concatenated-json.js';
import { followOutfile } from './outfile-follower.js';
import { TelemetryFold } from './telemetry-fold.js';

const VALUES = [
  { attributes: { 'event.name': 'x', text: 'a } ] { [ "quoted" \\ backslash é 😀' } },
  [1, { nested: ['}', '{'] }],
  { empty: {} },
];

function scanAll(text: string, cuts: number[], maxChars?: number) {
  const scanner = new ConcatenatedJsonScanner(maxChars);
  const values: unknown[] = [];
  let from = 0;
  for (const cut of [...cuts.sort((a, b) => a - b), text.length]) {
    scanner.feed(text.slice(from, cut), (value) => values.push(value));
    from = cut;
  }
  return { values, skipped: scanner.skipped };
}

describe('ConcatenatedJsonScanner', () => {
  it('finds every value wherever the text is cut', () => {
    const text = VALUES.map((value) => JSON.stringify(value, null, 2)).join('\n');
    fc.assert(
      fc.property(fc.array(fc.nat({ max: text.length }), { maxLength: 12 }), (cuts) => {
        expect(scanAll(text, cuts).values).toEqual(VALUES);
      }),
    );
  });

  it('skips a value longer than its bound and goes on with the next', () => {
    const big = { attributes: { response_text: 'x'.repeat(500) } };
    const text = [VALUES[0], big, VALUES[2]].map((value) => JSON.stringify(value)).join('');
    const { values, skipped } = scanAll(text, [10, 300], 200);
    expect(values).toEqual([VALUES[0], VALUES[2]]);
    expect(skipped).toBe(1);
  });
});

let folders: string[] = [];
afterEach(async () => {
  for (const folder of folders) await fs.rm(folder, { recursive: true, force: true });
  folders = [];
});

describe('followOutfile', () => {
  it('reads what was appended, and everything again when the file is replaced', async () => {
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-outfile-'));
    folders.push(folder);
    const file = path.join(folder, 'telemetry.log');
    const seen: unknown[] = [];
    let resets = 0;
    const follower = followOutfile(
      file,
      (value) => seen.push(value),
      () => resets++,
    );
    expect(await follower.poll()).toBe(0); // not there yet
    const first = JSON.stringify({ n: 1, text: 'é😀' }, null, 2);
    const bytes = Buffer.from(first);
    // Half a value, cut inside a multi-byte character: nothing yet, then the whole value.
    await fs.writeFile(file, bytes.subarray(0, bytes.length - 8));
    expect(await follower.poll()).toBe(0);
    await fs.appendFile(file, bytes.subarray(bytes.length - 8));
    expect(await follower.poll()).toBe(1);
    await fs.appendFile(file, JSON.stringify({ n: 2 }, null, 2));
    expect(await follower.poll()).toBe(1);
    expect(seen).toEqual([{ n: 1, text: 'é😀' }, { n: 2 }]);

    await fs.writeFile(`${file}.new`, JSON.stringify({ n: 3 }));
    await fs.rename(`${file}.new`, file);
    expect(await follower.poll()).toBe(1);
    expect(resets).toBe(1);
    expect(seen.at(-1)).toEqual({ n: 3 });
  });
});

function logRecord(name: string, at: number, attributes: Record<string, unknown>) {
  return {
    hrTime: [Math.floor(at / 1000), 0],
    resource: {
      _rawAttributes: [
        ['service.name', 'gemini-cli'],
        ['process.pid', 42],
      ],
    },
    attributes: {
      'session.id': 's1',
      'event.name': name,
      'event.timestamp': new Date(at).toISOString(),
      ...attributes,
    },
  };
}

function metricExport(temporality: number, value: number) {
  return {
    resource: { _rawAttributes: [['process.pid', 42]] },
    scopeMetrics: [
      {
        metrics: [
          {
            descriptor: { name: 'gemini_cli.tool_output_masking.masked.count' },
            aggregationTemporality: temporality,
            dataPoints: [{ attributes: { 'session.id': 's1', function_name: 'x' }, value }],
          },
          {
            descriptor: { name: 'gemini_cli.api.request.count' },
            aggregationTemporality: temporality,
            dataPoints: [{ attributes: { 'session.id': 's1' }, value: 99 }],
          },
        ],
      },
    ],
  };
}

describe('TelemetryFold', () => {
  it('folds main-agent responses and masking passes into per-request records', () => {
    const fold = new TelemetryFold();
    const response = (at: number, input: number, cached: number, role = 'main') =>
      logRecord('gemini_cli.api_response', at, {
        model: 'gemini-2.5-pro',
        input_token_count: input,
        cached_content_token_count: cached,
        output_token_count: 5,
        status_code: 200,
        role,
      });
    const pass = (at: number, masked: number, before: number, after: number) =>
      logRecord('gemini_cli.tool_output_masking', at, {
        masked_count: masked,
        tokens_before: before,
        tokens_after: after,
        failed_count: 0,
        bytes_offloaded: 100 * masked,
        duration_ms: 2,
        trigger: 'threshold',
      });
    for (const value of [
      response(1_000, 100, 0),
      response(1_500, 7, 0, 'utility_next_speaker'),
      pass(1_800, 2, 500, 100),
      response(2_000, 60, 50),
      response(3_000, 80, 60),
      pass(3_500, 1, 300, 200),
      response(4_000, 70, 0),
    ]) {
      fold.add(value);
    }
    const records = fold.records();
    expect(records.map((record) => record.promptTokens)).toEqual([100, 60, 80, 70]);
    expect(records.map((record) => record.newlyMasked)).toEqual([0, 2, 0, 1]);
    expect(records.map((record) => record.maskedOutputs)).toEqual([0, 2, 2, 3]);
    expect(records.map((record) => record.tokensKeptOut)).toEqual([0, 400, 400, 500]);
    expect(records[1]).toMatchObject({
      conversationId: 's1',
      client: 'gemini-cli',
      front: 'in-process',
      model: 'gemini-2.5-pro',
      cachedTokens: 50,
      trigger: 'threshold',
      bytesOffloaded: 200,
    });
    expect(fold.records({ sinceMs: 2_500 })).toHaveLength(2);
    expect(fold.records({ conversationId: 'other' })).toEqual([]);
  });

  it('takes the latest cumulative metric point and sums delta points', () => {
    const cumulative = new TelemetryFold();
    cumulative.add(metricExport(1, 2));
    cumulative.add(metricExport(1, 5));
    expect(cumulative.extras('s1')).toEqual({ 'gemini_cli.tool_output_masking.masked.count': 5 });
    const delta = new TelemetryFold();
    delta.add(metricExport(0, 2));
    delta.add(metricExport(0, 5));
    expect(delta.extras('s1')).toEqual({ 'gemini_cli.tool_output_masking.masked.count': 7 });
    expect(delta.extras('nobody')).toBeUndefined();
  });
});
