/**
 * The pool of pattern workers (readPattern.ts; issue 21, hole 6): 150 concurrent searches start at
 * most `PATTERN_WORKERS` threads, a search queued behind slow ones ends at its own deadline, an
 * abort leaves the queue at once, and a worker stopped at its deadline is replaced. Workers are
 * counted through the `_internal` seam; what the tests wait for is the pool's state, not time.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { PATTERN_WORKERS, _internal } from './patternWorkerPool.js';
import {
  ToolOutputReadError,
  readToolOutput,
  type ReadToolOutputResult,
  type ToolOutputAccess,
} from './toolOutputReader.js';

let root: string;
let session: string;
let access: ToolOutputAccess;

let counter = 0;
/** Writes an output file into the session folder; returns its path. */
function output(text: string): string {
  const file = path.join(session, `run_shell_command.c${++counter}.0123456789abcdef.txt`);
  fs.writeFileSync(file, text, { mode: 0o600 });
  return file;
}

/** Five outputs of 2,000 lines; in output k, every (k + 7)th line holds `hit-k`. */
const HITS = Array.from({ length: 5 }, (_, k) => k);
const hitFiles: string[] = [];
const hitLines = (k: number) =>
  Array.from(
    { length: 2_000 },
    (_, i) => `line ${i + 1}${(i + 1) % (k + 7) === 0 ? ` HIT-${k} here` : ''}`,
  );

/**
 * One line of 1 MiB on which re2js needs ~10 s for `a.{1000}c$` (linear time, but pattern size
 * times line size): a search that holds its worker far longer than any test here waits.
 */
const SLOW_PATTERN = 'a.{1000}c$';
let slowFile: string;

beforeAll(async () => {
  // Unit files share a process: another file's searches may have left workers warm.
  await _internal.drainIdle();
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-pattern-pool-')));
  session = path.join(root, 'project', 'tool-outputs', 'session-abc');
  fs.mkdirSync(session, { recursive: true, mode: 0o700 });
  access = {
    projectTempDir: path.join(root, 'project'),
    sessionId: 'abc',
    allowOtherSessions: false,
  };
  for (const k of HITS) hitFiles.push(output(hitLines(k).join('\n')));
  let seed = 1;
  const letter = () => {
    seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
    const r = seed / 0x7fffffff;
    return r < 0.45 ? 'a' : r < 0.9 ? 'b' : r < 0.95 ? 'c' : 'z';
  };
  slowFile = output(Array.from({ length: 1 << 20 }, letter).join(''));
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** Workers started during a test, and the most the pool held alive at any start. */
let started: Worker[];
let mostAlive: number;
beforeEach(() => {
  started = [];
  mostAlive = 0;
  _internal.onWorkerStart = (worker) => {
    started.push(worker);
    mostAlive = Math.max(mostAlive, _internal.poolState().workers);
  };
});

/** Slow searches still running are aborted; the next test starts with no busy worker. */
const running: AbortController[] = [];
afterEach(async () => {
  for (const controller of running.splice(0)) controller.abort();
  _internal.onWorkerStart = undefined;
  await waitForPool((state) => expect(state.workers).toBe(state.idle));
});

function waitForPool(
  check: (state: ReturnType<typeof _internal.poolState>) => void,
): Promise<void> {
  return vi.waitFor(() => check(_internal.poolState()), { timeout: 20_000, interval: 5 });
}

/** The lines a result shows, with their numbers. */
const shownLines = (result: ReadToolOutputResult) =>
  result.text.split('\n').filter((line) => /^\d+:/.test(line));

/**
 * Starts one slow search per worker of the pool and waits until each holds one. `searches` give
 * a result or the error; `settled` says which have ended.
 */
async function fillPool(searchTimeMs: number) {
  const settled: boolean[] = [];
  const searches = Array.from({ length: PATTERN_WORKERS }, (_, index) => {
    const controller = new AbortController();
    running.push(controller);
    settled[index] = false;
    return readToolOutput({ file: slowFile, pattern: SLOW_PATTERN }, access, {
      signal: controller.signal,
      searchTimeMs,
    })
      .catch((error: unknown) => error)
      .finally(() => (settled[index] = true));
  });
  // No other search runs: every live worker busy and none queued means each slow one has its own.
  await waitForPool((state) => {
    expect(state.queued).toBe(0);
    expect(state.idle).toBe(0);
    expect(state.workers).toBe(PATTERN_WORKERS);
  });
  return { searches, settled };
}

describe('the pool of pattern workers', () => {
  it('runs 150 concurrent searches on at most PATTERN_WORKERS threads, each with its own result', async () => {
    expect(PATTERN_WORKERS).toBeGreaterThanOrEqual(1);
    expect(PATTERN_WORKERS).toBeLessThanOrEqual(2);
    expect(_internal.poolState().workers).toBe(0);
    const searches = Array.from({ length: 150 }, (_, index) => {
      const k = index % HITS.length;
      const pattern = index % 2 === 0 ? `HIT-${k}\\b` : `/hit-${k} here$/i`;
      return readToolOutput({ file: hitFiles[k] as string, pattern, limit: 3 }, access);
    });
    const results = await Promise.all(searches);
    results.forEach((result, index) => {
      const k = index % HITS.length;
      const every = k + 7;
      expect(result.matches).toBe(Math.floor(2_000 / every));
      expect(result.matchesShown).toBe(3);
      expect(shownLines(result)).toEqual(
        [1, 2, 3].map((n) => `${n * every}:line ${n * every} HIT-${k} here`),
      );
    });
    // The reverted code started one worker per search: 150 threads, 1.5 GB in the gateway.
    expect(started.length).toBeGreaterThanOrEqual(1);
    expect(started.length).toBeLessThanOrEqual(PATTERN_WORKERS);
    expect(mostAlive).toBeLessThanOrEqual(PATTERN_WORKERS);
    expect(_internal.poolState()).toMatchObject({ queued: 0 });
  }, 60_000);

  it('ends a search queued behind slow ones at its own deadline, with the time-limit footer', async () => {
    const slow = await fillPool(60_000);
    let ended = false;
    const queued = readToolOutput({ file: hitFiles[0] as string, pattern: 'HIT-0' }, access, {
      searchTimeMs: 1_500,
    }).finally(() => (ended = true));
    await waitForPool((state) => expect(state.queued).toBe(1));
    const result = await queued;
    expect(ended).toBe(true);
    // It never had a worker: nothing searched, the footer the reader gives at its time limit.
    expect(result.truncated).toBe(true);
    expect(result.matchesShown).toBe(0);
    expect(result.text).toMatch(
      /^\[read_tool_output: 0 matching lines shown in lines 1-0 \(the output goes on: [\d,]+ bytes in all\); stopped at the 10-second time limit per call: call again with the same pattern and offset=1 for more\]$/,
    );
    expect(_internal.poolState().queued).toBe(0);
    // The slow searches (~10 s a line, 60 s limit) still hold their workers.
    expect(slow.settled).toEqual(Array.from({ length: PATTERN_WORKERS }, () => false));
    expect(mostAlive).toBeLessThanOrEqual(PATTERN_WORKERS);
  }, 60_000);

  it('takes an aborted search out of the queue at once', async () => {
    const slow = await fillPool(60_000);
    const controller = new AbortController();
    const queued = readToolOutput({ file: hitFiles[1] as string, pattern: 'HIT-1' }, access, {
      signal: controller.signal,
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await waitForPool((state) => expect(state.queued).toBe(1));
    const workersBefore = started.length;
    controller.abort();
    const error = await queued;
    expect(error).toBeInstanceOf(ToolOutputReadError);
    expect((error as ToolOutputReadError).code).toBe('ABORTED');
    expect((error as ToolOutputReadError).message).toBe('the read was cancelled.');
    expect(_internal.poolState().queued).toBe(0);
    // At once: it ended with no worker of its own, while the slow searches (~10 s a line) still
    // hold theirs; counted, not timed, so a loaded machine cannot change the outcome.
    expect(started.length).toBe(workersBefore);
    expect(slow.settled).toEqual(Array.from({ length: PATTERN_WORKERS }, () => false));
  }, 60_000);

  it('terminates a worker whose search ran past its deadline and gives a new one to the queue', async () => {
    const slow = await fillPool(1_000);
    const before = started.length;
    const queued = readToolOutput({ file: hitFiles[2] as string, pattern: 'HIT-2' }, access, {
      searchTimeMs: 30_000,
    });
    await waitForPool((state) => expect(state.queued).toBe(1));
    const result = await queued;
    // The slow ones stopped at their limit (with the reader's usual footer), their workers ended.
    for (const search of await Promise.all(slow.searches)) {
      expect((search as ReadToolOutputResult).text).toMatch(
        /stopped at the 10-second time limit per call/,
      );
    }
    expect(result.matches).toBe(Math.floor(2_000 / 9));
    expect(shownLines(result)[0]).toBe('9:line 9 HIT-2 here');
    // The queued search ran on a replacement, started once a terminated worker had exited.
    expect(started.length).toBeGreaterThan(before);
    expect(mostAlive).toBeLessThanOrEqual(PATTERN_WORKERS);
  }, 60_000);
});
