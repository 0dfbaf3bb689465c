/**
 * A replay is a measurement: the same input and settings give the same figures, the same bytes and
 * the same decisions on every run, wherever the outputs are written (a temporary folder, or
 * `--keep` folders of different path lengths). Pass times are wall-clock measurements and are
 * the only figures left out of the comparison.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ReplayReport } from '../../render/replay-report.js';
import { runCliCaptured } from '../../test-data/run-cli.js';

const work = mkdtempSync(join(tmpdir(), 'toolmask-reproducible-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const TRACES = join(import.meta.dirname, '..', '..', '..', '..', '..', '..', 'shared', 'traces');
const MINI = join(TRACES, 'mini-swe-agent-gemini3pro');
const tracesAvailable = existsSync(MINI);
if (!tracesAvailable) {
  console.warn(`[toolmask] skipping the reproducible trace replay: ${MINI} is absent`);
}

/** The report as JSON without the wall-clock pass times. */
function figures(report: ReplayReport): string {
  return JSON.stringify(report, (key, value: unknown) => (key === 'passMs' ? undefined : value));
}

async function replay(args: string[]): Promise<ReplayReport> {
  const run = await runCliCaptured(['replay', '--json', ...args]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as ReplayReport;
}

/** Every file under `root` by relative path, with the SHA-256 of its bytes. */
function fileTree(root: string): Record<string, string> {
  const tree: Record<string, string> = {};
  for (const name of readdirSync(root, { recursive: true }) as string[]) {
    const file = join(root, name);
    try {
      tree[relative(root, file)] = createHash('sha256').update(readFileSync(file)).digest('hex');
    } catch {
      // a folder
    }
  }
  return tree;
}

describe('toolmask replay is reproducible', () => {
  it('the built-in example: the same figures, notices and decisions on every run', async () => {
    const first = await replay(['--compare']);
    const second = await replay(['--compare']);
    expect(figures(second)).toBe(figures(first));
    const [, toolmask, gemini] = first.strategies;
    expect(toolmask!.summary.outputsMasked).toBeGreaterThan(0);
    expect(gemini!.summary.outputsMasked).toBeGreaterThan(0);
    // Notices name the fixed shown folder, not a random one.
    const notice = toolmask!.requests.find((row) => row.notice)?.notice;
    expect(notice).toContain('/toolmask-replay/toolmask/tool-outputs/session-replay-1');
  });

  it('--keep: the same figures as without it, and the same files, whatever the folder', async () => {
    const withoutKeep = await replay(['--compare']);
    const short = join(work, 'k');
    const long = join(work, 'a-much-longer-folder-name-for-the-kept-outputs');
    const keptShort = await replay(['--compare', '--keep', short]);
    const keptLong = await replay(['--compare', '--keep', long]);
    expect(figures(keptShort)).toBe(figures(withoutKeep));
    expect(figures(keptLong)).toBe(figures(withoutKeep));
    const tree = fileTree(short);
    expect(Object.keys(tree).length).toBeGreaterThan(20);
    expect(fileTree(long)).toEqual(tree);
    // The bytes each strategy reports are the bytes in its folder (a fresh folder each time).
    for (const strategy of keptShort.strategies.slice(1)) {
      const onDisk = Object.keys(tree)
        .filter((name) => name.startsWith(`${strategy.name}/`))
        .reduce((sum, name) => sum + readFileSync(join(short, name)).length, 0);
      expect(strategy.summary.bytesOffloaded, strategy.name).toBe(onDisk);
    }
  });

  it('--keep --force into the same folder again: the same figures, and no files pile up', async () => {
    const keep = join(work, 'again');
    const first = await replay(['--compare', '--keep', keep]);
    const tree = fileTree(keep);
    const second = await replay(['--compare', '--keep', keep, '--force']);
    expect(figures(second)).toBe(figures(first));
    expect(fileTree(keep)).toEqual(tree);
  });

  it.skipIf(!tracesAvailable)(
    'recorded traces chained 8 at a time: the same figures twice',
    async () => {
      const files = readdirSync(MINI)
        .filter((name) => name.endsWith('.json'))
        .sort()
        .slice(0, 16)
        .map((name) => join(MINI, name));
      const first = await replay(['--compare', '--concat', '8', ...files]);
      const second = await replay(['--compare', '--concat', '8', ...files]);
      expect(figures(second)).toBe(figures(first));
      expect(first.strategies[1]!.summary.outputsMasked).toBeGreaterThan(50);
    },
    60_000,
  );
});
