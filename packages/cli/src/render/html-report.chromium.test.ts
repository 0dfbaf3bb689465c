/**
 * Opens the HTML report in headless Chromium (Debian package `chromium`) and checks the rendered
 * DOM (`--dump-dom`, no screenshot): two SVG charts with one line per strategy, and the summary
 * table. Skipped with a note when /usr/bin/chromium is absent.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../test-data/run-cli.js';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available) console.warn(`[toolmask] skipping HTML report browser test: ${CHROMIUM} is absent`);

const work = mkdtempSync(join(tmpdir(), 'toolmask-report-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function renderedDom(file: string): Promise<string> {
  const profile = mkdtempSync(join(work, 'profile-'));
  const { stdout } = await promisify(execFile)(
    CHROMIUM,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
      '--dump-dom',
      pathToFileURL(file).href,
    ],
    { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout;
}

describe.skipIf(!available)('the HTML report in headless Chromium', () => {
  it('has both SVG charts with a line per strategy, and the summary table', async () => {
    const file = join(work, 'report.html');
    const run = await runCliCaptured(['replay', '--compare', '--report', file]);
    expect(run.code).toBe(0);

    const dom = await renderedDom(file);
    expect(dom).toMatch(/^<!DOCTYPE html>/i);
    const charts = dom.match(/<svg[^>]*class="chart"/g) ?? [];
    expect(charts).toHaveLength(2);
    expect(dom).toContain('Context tokens per request');
    expect(dom).toContain('Cumulative billed tokens');
    const lines = [...dom.matchAll(/<polyline[^>]*data-series="([^"]+)"[^>]*points="([^"]*)"/g)];
    expect(lines.map((match) => match[1])).toEqual([
      'none',
      'toolmask',
      'gemini-cli',
      'none',
      'toolmask',
      'gemini-cli',
    ]);
    for (const match of lines) expect(match[2]!.split(' ').length).toBeGreaterThan(10);

    const table = /<table class="summary">([\s\S]*?)<\/table>/.exec(dom)?.[1] ?? '';
    expect(table).toMatch(
      /<th class="num">none<\/th><th class="num">toolmask<\/th><th class="num">gemini-cli<\/th>/,
    );
    for (const label of [
      'requests',
      'peak context tokens',
      'billed tokens',
      'cache breaks',
      'bytes offloaded',
    ]) {
      expect(table).toContain(`<th>${label}</th>`);
    }
    expect(table).toMatch(/<td class="num">\d{1,3}(,\d{3})+<\/td>/);
  });
});
