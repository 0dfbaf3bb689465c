/**
 * Guarantees that need real processes (docs/reliability.md):
 * 2. a pass killed at any moment (SIGKILL) leaves no partial file under a final name; the next
 *    pass completes with exactly one intact file per output and cleans the killed pass's
 *    temporary files;
 * 6. two sessions of one project masking at the same time in two processes (and two processes
 *    of the same session) never corrupt or delete each other's files;
 * 1. a real read-only folder (EACCES, enforced by the kernel: the child drops root privileges
 *    when the tests run as root, since root ignores permission bits) fails the writes, not the pass.
 *
 * The children run packages/core/src/test-fixtures/maskSession.mjs against the built package;
 * `beforeAll` brings packages/core/dist up to date (`tsc -b`, a no-op when it is).
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sessionDirectory } from '../storage/outputLayout.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(here, '../../../..');
const CHILD = path.resolve(here, '../test-fixtures/maskSession.mjs');

interface ChildOptions {
  projectTempDir: string;
  sessionId: string;
  outputs: number;
  lines: number;
  shared?: number;
  slowWrite?: { chunk: number; delayMs: number };
  dropPrivileges?: boolean;
  staleTemporaryFileMs?: number;
  waitForGo?: boolean;
}

interface ChildResult {
  maskedCount: number;
  unchanged: boolean;
  failures: Array<{ code: string; callId: string }>;
  offloaded: Array<{ filePath: string; sha256: string }>;
}

interface Child {
  ready: Promise<void>;
  /** Starts the pass of a child started with `waitForGo`. */
  go(): void;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; result?: ChildResult }>;
  kill(): void;
}

function startChild(options: ChildOptions): Child {
  const child = spawn(process.execPath, [CHILD, JSON.stringify(options)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (stdout.includes('READY\n')) markReady();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<Awaited<Child['done']>>((resolve, reject) => {
    child.on('exit', (code, signal) => {
      markReady();
      const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 && signal === null) {
        reject(new Error(`child failed (${code}): ${stderr}`));
        return;
      }
      resolve({
        code,
        signal,
        result: line ? (JSON.parse(line.slice('RESULT '.length)) as ChildResult) : undefined,
      });
    });
  });
  return {
    ready,
    go: () => child.stdin.end('go\n'),
    done,
    kill: () => child.kill('SIGKILL'),
  };
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/**
 * The invariant after any crash: every final name holds a whole file whose sha256 matches the
 * hash in its name; only temporary files (`.<name>.<pid>.<random>.tmp`) may be partial.
 */
function checkFinalNames(directory: string): { finals: string[]; temporaries: string[] } {
  const finals: string[] = [];
  const temporaries: string[] = [];
  if (!fs.existsSync(directory)) return { finals, temporaries };
  for (const name of fs.readdirSync(directory)) {
    if (name.startsWith('.')) {
      expect(name).toMatch(/^\..+\.txt\.\d+\.[0-9a-f]+\.tmp$/);
      temporaries.push(name);
      continue;
    }
    const match = /\.([0-9a-f]{16})\.txt$/.exec(name);
    expect(match, `unexpected file ${name}`).not.toBeNull();
    const content = fs.readFileSync(path.join(directory, name));
    expect(sha256(content).slice(0, 16), `${name} is partial or corrupt`).toBe(match![1]);
    expect(fs.statSync(path.join(directory, name)).mode & 0o777).toBe(0o600);
    finals.push(name);
  }
  return { finals, temporaries };
}

/** A seeded generator, so the kill moments are reproducible. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

beforeAll(() => {
  try {
    execFileSync(
      process.execPath,
      [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-b', 'packages/core'],
      { cwd: REPO, stdio: 'pipe' },
    );
  } catch (error) {
    // Someone's work in progress does not compile: run against the last good build.
    if (!fs.existsSync(path.join(REPO, 'packages/core/dist/storage/toolOutputStore.js')))
      throw error;
    console.warn(`tsc -b packages/core failed; using the existing dist: ${String(error)}`);
  }
}, 120_000);

let root: string | undefined;
afterEach(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
  root = undefined;
});
const makeRoot = () => (root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-processes-')));

describe('guarantee 2: a pass killed at any moment loses nothing', () => {
  it('SIGKILL mid-pass leaves only whole files under final names; the next pass completes and cleans up', async () => {
    const project = makeRoot();
    const base: ChildOptions = {
      projectTempDir: project,
      sessionId: 'killed',
      outputs: 24,
      lines: 3_000, // ~220 KB an output
      slowWrite: { chunk: 16_384, delayMs: 1 },
    };
    const directory = sessionDirectory(project, base.sessionId);
    const random = prng(Number(process.env['TOOLMASK_KILL_SEED'] ?? 7));
    let interrupted = 0;
    for (let round = 0; round < 8; round++) {
      const child = startChild(base);
      await child.ready;
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 400)));
      child.kill();
      const exit = await child.done;
      const { temporaries } = checkFinalNames(directory);
      if (exit.signal === 'SIGKILL' && temporaries.length > 0) interrupted++;
    }
    // The kills did land in the middle of writes (temporary files left behind).
    expect(interrupted).toBeGreaterThan(0);

    // The next pass (a resumed session) masks every output, reusing the whole files, and
    // removes the killed passes' temporary files.
    const final = await startChild({ ...base, slowWrite: undefined, staleTemporaryFileMs: 0 }).done;
    expect(final.result?.failures).toEqual([]);
    expect(final.result?.maskedCount).toBe(base.outputs);
    const { finals, temporaries } = checkFinalNames(directory);
    expect(temporaries).toEqual([]);
    // Exactly one file per output: no duplicates, no orphans.
    expect(finals.sort()).toEqual(
      final.result!.offloaded.map((o) => path.basename(o.filePath)).sort(),
    );
    for (const item of final.result!.offloaded) {
      expect(sha256(fs.readFileSync(item.filePath))).toBe(item.sha256);
    }
  });
});

describe('guarantee 6: concurrent processes never corrupt or delete each other’s files', () => {
  async function runTogether(sessions: string[], shared: number) {
    const project = makeRoot();
    const children = sessions.map((sessionId) =>
      startChild({
        projectTempDir: project,
        sessionId,
        outputs: 30,
        lines: 3_000,
        shared,
        slowWrite: { chunk: 32_768, delayMs: 1 },
        waitForGo: true,
      }),
    );
    // Both passes start at the same moment and write for a few hundred milliseconds each.
    await Promise.all(children.map((child) => child.ready));
    for (const child of children) child.go();
    const results = await Promise.all(children.map((child) => child.done));
    return { project, results };
  }

  it('two sessions of one project, same moment, some identical outputs', async () => {
    const { project, results } = await runTogether(['alpha', 'beta'], 15);
    for (const [i, session] of ['alpha', 'beta'].entries()) {
      const result = results[i]!.result!;
      expect(result.failures).toEqual([]);
      expect(result.maskedCount).toBe(30);
      const directory = sessionDirectory(project, session);
      const { finals, temporaries } = checkFinalNames(directory);
      expect(temporaries).toEqual([]);
      expect(finals.sort()).toEqual(result.offloaded.map((o) => path.basename(o.filePath)).sort());
      for (const item of result.offloaded) {
        expect(path.dirname(item.filePath)).toBe(directory);
        expect(sha256(fs.readFileSync(item.filePath))).toBe(item.sha256);
      }
    }
    // Identical outputs are saved once per session, each in its own folder.
    const alpha = new Set(fs.readdirSync(sessionDirectory(project, 'alpha')));
    const beta = fs.readdirSync(sessionDirectory(project, 'beta'));
    expect(beta.filter((name) => alpha.has(name))).toHaveLength(15);
  });

  it('two processes of the same session (a session resumed twice) at the same moment', async () => {
    const { project, results } = await runTogether(['gamma', 'gamma'], 0);
    const directory = sessionDirectory(project, 'gamma');
    for (const { result } of results) {
      expect(result!.failures).toEqual([]);
      expect(result!.maskedCount).toBe(30);
      for (const item of result!.offloaded) {
        expect(sha256(fs.readFileSync(item.filePath))).toBe(item.sha256);
      }
    }
    const { finals, temporaries } = checkFinalNames(directory);
    expect(temporaries).toEqual([]);
    expect(finals).toHaveLength(30);
  });
});

describe('guarantee 1: a real read-only folder fails the writes, not the pass', () => {
  it('EACCES from the kernel (as an unprivileged user): nothing masked, history returned as it was', async () => {
    const top = makeRoot();
    const project = path.join(top, 'project');
    fs.mkdirSync(project);
    fs.chmodSync(top, 0o755);
    fs.chmodSync(project, 0o555);
    const dropPrivileges = process.getuid?.() === 0;
    const { result } = await startChild({
      projectTempDir: project,
      sessionId: 'readonly',
      outputs: 4,
      lines: 400,
      dropPrivileges,
    }).done;
    expect(result!.unchanged).toBe(true);
    expect(result!.maskedCount).toBe(0);
    expect(result!.failures.map((f) => f.code)).toEqual(['EACCES', 'EACCES', 'EACCES', 'EACCES']);
    expect(fs.readdirSync(project)).toEqual([]);
    fs.chmodSync(project, 0o755);
  });
});
