import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAY_MS, applyRetention, findExpiredSessionFolders } from './retention.js';
import { LIVE_WINDOW_MS } from './sessionActivity.js';
import { readToolOutput } from './toolOutputReader.js';
import { createFileToolOutputStore } from './toolOutputStore.js';

const NOW = Date.UTC(2026, 2, 1, 12);
let root: string;
let tempDir: string;
let outputs: string;

function age(target: string, days: number): void {
  const time = (NOW - days * DAY_MS) / 1000;
  fs.utimesSync(target, time, time);
}

function session(id: string, days: number, files = 1): string {
  const folder = path.join(outputs, `session-${id}`);
  fs.mkdirSync(folder, { recursive: true });
  for (let i = 0; i < files; i++) {
    const file = path.join(folder, `tool_call-${i}_0123456789abcde${i}.txt`);
    fs.writeFileSync(file, `output ${i}`);
    age(file, days);
  }
  age(folder, days);
  return folder;
}

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-retention-')));
  tempDir = path.join(root, 'project');
  outputs = path.join(tempDir, 'tool-outputs');
  fs.mkdirSync(outputs, { recursive: true });
});

afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('applyRetention', () => {
  it('removes session folders whose newest file is older than retentionDays, and only those', async () => {
    const old = session('old', 45, 3);
    const recent = session('recent', 2);
    // An old folder with one recent file stays.
    const mixed = session('mixed', 60, 2);
    const fresh = path.join(mixed, 'new_call-9_ffffffffffffffff.txt');
    fs.writeFileSync(fresh, 'new');
    age(fresh, 1);
    age(mixed, 60);
    const report = await applyRetention({
      projectTempDir: tempDir,
      retentionDays: 30,
      now: () => NOW,
    });
    expect(report.removed.map((folder) => folder.path)).toEqual([old]);
    expect(report.bytesFreed).toBe(3 * 'output 0'.length);
    expect(fs.existsSync(old)).toBe(false);
    expect(fs.existsSync(recent)).toBe(true);
    expect(fs.existsSync(mixed)).toBe(true);
  });

  it('never removes the current session, whatever its age', async () => {
    const current = session('current-1', 400);
    const report = await applyRetention({
      projectTempDir: tempDir,
      retentionDays: 30,
      keepSessions: ['current-1'],
      now: () => NOW,
    });
    expect(report.removed).toEqual([]);
    expect(fs.existsSync(current)).toBe(true);
  });

  it('retentionDays 0 keeps everything', async () => {
    const old = session('old', 4_000);
    const report = await applyRetention({
      projectTempDir: tempDir,
      retentionDays: 0,
      now: () => NOW,
    });
    expect(report.removed).toEqual([]);
    expect(fs.existsSync(old)).toBe(true);
  });

  it('never follows links and never touches anything outside tool-outputs', async () => {
    const outside = path.join(root, 'outside');
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'precious.txt'), 'keep me');
    age(path.join(outside, 'precious.txt'), 90);
    age(outside, 90);
    // A link posing as an old session, a link inside an old session, a loose file, other names.
    fs.symlinkSync(outside, path.join(outputs, 'session-linked'));
    const old = session('old', 90);
    fs.symlinkSync(outside, path.join(old, 'escape'));
    const linkTime = (NOW - 90 * DAY_MS) / 1000;
    fs.lutimesSync(path.join(old, 'escape'), linkTime, linkTime);
    age(old, 90);
    fs.writeFileSync(path.join(outputs, 'loose_call-1_0000000000000000.txt'), 'loose');
    age(path.join(outputs, 'loose_call-1_0000000000000000.txt'), 90);
    fs.mkdirSync(path.join(outputs, 'not-a-session'));
    age(path.join(outputs, 'not-a-session'), 90);

    const report = await applyRetention({
      projectTempDir: tempDir,
      retentionDays: 30,
      now: () => NOW,
    });
    expect(report.removed.map((folder) => folder.name)).toEqual(['session-old']);
    expect(fs.existsSync(old)).toBe(false);
    expect(fs.readFileSync(path.join(outside, 'precious.txt'), 'utf8')).toBe('keep me');
    expect(fs.lstatSync(path.join(outputs, 'session-linked')).isSymbolicLink()).toBe(true);
    expect(fs.existsSync(path.join(outputs, 'loose_call-1_0000000000000000.txt'))).toBe(true);
    expect(fs.existsSync(path.join(outputs, 'not-a-session'))).toBe(true);
  });

  it('does nothing when tool-outputs itself is a link', async () => {
    const elsewhere = path.join(root, 'elsewhere');
    fs.mkdirSync(path.join(elsewhere, 'session-old'), { recursive: true });
    age(path.join(elsewhere, 'session-old'), 90);
    fs.rmSync(outputs, { recursive: true });
    fs.symlinkSync(elsewhere, outputs);
    expect(await findExpiredSessionFolders(tempDir, 30 * DAY_MS, NOW)).toEqual([]);
    const report = await applyRetention({
      projectTempDir: tempDir,
      retentionDays: 30,
      now: () => NOW,
    });
    expect(report.removed).toEqual([]);
    expect(fs.existsSync(path.join(elsewhere, 'session-old'))).toBe(true);
  });

  it('a project without tool outputs is fine', async () => {
    const report = await applyRetention({
      projectTempDir: path.join(root, 'none'),
      retentionDays: 30,
      now: () => NOW,
    });
    expect(report).toMatchObject({ removed: [], failed: [], bytesFreed: 0 });
  });
});

describe('last use and liveness (issue 15, item 7)', () => {
  /** The liveness marker of a running session, last refreshed `minutes` before NOW. */
  function live(folder: string, minutes: number): void {
    const marker = `${folder}.live`;
    fs.writeFileSync(marker, '');
    const time = (NOW - minutes * 60_000) / 1000;
    fs.utimesSync(marker, time, time);
  }

  it("never removes a running session's folder, however long it was idle", async () => {
    const idle = session('idle-but-running', 45);
    live(idle, 1);
    const report = await applyRetention({
      projectTempDir: tempDir,
      retentionDays: 30,
      now: () => NOW,
    });
    expect(report.removed).toEqual([]);
    expect(fs.existsSync(idle)).toBe(true);
  });

  it('a crashed session (its marker stale) ages from its last use; the marker is no use', async () => {
    const crashed = session('crashed', 45);
    live(crashed, LIVE_WINDOW_MS / 60_000 + 1);
    const stillUsed = session('crashed-but-used', 45);
    live(stillUsed, LIVE_WINDOW_MS / 60_000 + 1);
    age(stillUsed, 2);
    const expired = await findExpiredSessionFolders(tempDir, 30 * DAY_MS, NOW);
    expect(expired.map((folder) => folder.path)).toEqual([crashed]);
    expect(expired[0]?.files).toBe(1);
  });

  it('a read-back is a use: the folder is kept for retentionDays from it', async () => {
    const folder = session('read', 45);
    const [name] = fs.readdirSync(folder);
    const access = { projectTempDir: tempDir, sessionId: 'read', allowOtherSessions: false };
    await readToolOutput({ file: name as string }, access);
    expect(await findExpiredSessionFolders(tempDir, 30 * DAY_MS, Date.now())).toEqual([]);
  });

  it('a write is a use, even of a file that was already there (content-addressed)', async () => {
    const folder = session('write', 45);
    const [name] = fs.readdirSync(folder);
    // A private copy with the same content: the store reuses it rather than writing it again.
    fs.chmodSync(path.join(folder, name as string), 0o600);
    age(path.join(folder, name as string), 45);
    age(folder, 45);
    await createFileToolOutputStore().save(folder, name as string, 'output 0');
    expect(fs.statSync(path.join(folder, name as string)).mtimeMs).toBeLessThan(NOW);
    expect(await findExpiredSessionFolders(tempDir, 30 * DAY_MS, Date.now())).toEqual([]);
  });
});
