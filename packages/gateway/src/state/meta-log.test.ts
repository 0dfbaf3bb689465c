/**
 * The conversation's state as the file store keeps it (meta-log.ts): one line per answer, the
 * newest whole line loaded, the log rewritten short once it grows.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { CONTRACT_ID, contractMeta } from '../test-utils/conversation-store-contract.js';
import { createFileConversationStore } from './file-conversation-store.js';
import { COMPACT_AFTER_BYTES } from './meta-log.js';

describe('the state after each answer (file store)', () => {
  const cleanups = cleanUpAfterEach();

  async function setUp() {
    const stateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-meta-'));
    cleanups.push(() => fs.rm(stateDir, { recursive: true, force: true }));
    const warnings: string[] = [];
    const store = createFileConversationStore(stateDir, (message) => warnings.push(message));
    const folder = path.join(stateDir, 'conversations', CONTRACT_ID);
    return { stateDir, store, folder, warnings };
  }
  const answer = (at: number) => ({ ...contractMeta, lastEndedAt: at });

  it('is appended as one line per answer, and the newest line is loaded', async () => {
    const { store, folder } = await setUp();
    await store.saveMeta(CONTRACT_ID, answer(1));
    await store.saveMeta(CONTRACT_ID, answer(2));
    const lines = (await fs.readFile(path.join(folder, 'meta.jsonl'), 'utf8')).split('\n');
    expect(lines.map((line) => (line ? JSON.parse(line) : line))).toEqual([
      answer(1),
      answer(2),
      '',
    ]);
    expect(await fs.readdir(folder)).toEqual(['meta.jsonl']);
    expect((await store.load(CONTRACT_ID)).meta).toEqual(answer(2));
  });

  it('a torn last line (a crash mid-append): the state before it is loaded', async () => {
    const { store, folder, stateDir } = await setUp();
    await store.saveMeta(CONTRACT_ID, answer(1));
    await fs.appendFile(path.join(folder, 'meta.jsonl'), JSON.stringify(answer(2)).slice(0, 40));
    // A new process: nothing in memory.
    const again = createFileConversationStore(stateDir);
    expect((await again.load(CONTRACT_ID)).meta).toEqual(answer(1));
  });

  it('the answer after a torn last line is kept whole (not glued to the torn line)', async () => {
    const { folder, stateDir } = await setUp();
    const first = createFileConversationStore(stateDir);
    await first.saveMeta(CONTRACT_ID, answer(1));
    await fs.appendFile(path.join(folder, 'meta.jsonl'), JSON.stringify(answer(2)).slice(0, 40));
    // The next process loads the conversation, answers once, and stops.
    const second = createFileConversationStore(stateDir);
    expect((await second.load(CONTRACT_ID)).meta).toEqual(answer(1));
    await second.saveMeta(CONTRACT_ID, answer(3));
    const third = createFileConversationStore(stateDir);
    expect((await third.load(CONTRACT_ID)).meta).toEqual(answer(3));
  });

  it('after a failed append (part of its line may be written), the next answer rewrites the log', async () => {
    const { store, folder } = await setUp();
    const log = path.join(folder, 'meta.jsonl');
    await store.saveMeta(CONTRACT_ID, answer(1));
    // The append fails (here: a folder in the way), leaving part of its line behind.
    await fs.rm(log);
    await fs.mkdir(log);
    await expect(store.saveMeta(CONTRACT_ID, answer(2))).rejects.toThrow();
    await fs.rmdir(log);
    await fs.writeFile(
      log,
      JSON.stringify(answer(1)) + '\n' + JSON.stringify(answer(2)).slice(0, 40),
    );
    await store.saveMeta(CONTRACT_ID, answer(3));
    expect((await store.load(CONTRACT_ID)).meta).toEqual(answer(3));
  });

  it('is rewritten as its newest line once its appends pass the bound', async () => {
    const { store, folder } = await setUp();
    const line = JSON.stringify(answer(0)).length + 1;
    const answers = Math.ceil((COMPACT_AFTER_BYTES * 2.5) / line);
    for (let at = 1; at <= answers; at++) {
      await store.saveMeta(CONTRACT_ID, answer(at));
      if (at === 1) await store.load(CONTRACT_ID);
    }
    const size = (await fs.stat(path.join(folder, 'meta.jsonl'))).size;
    expect(size).toBeLessThanOrEqual(COMPACT_AFTER_BYTES);
    expect((await store.load(CONTRACT_ID)).meta).toEqual(answer(answers));
  });

  it("reads an earlier gateway's meta.json until a line is appended", async () => {
    const { store, folder, warnings } = await setUp();
    await fs.mkdir(folder, { recursive: true, mode: 0o700 });
    await fs.writeFile(path.join(folder, 'meta.json'), JSON.stringify(answer(1)) + '\n');
    expect((await store.load(CONTRACT_ID)).meta).toEqual(answer(1));
    await store.saveMeta(CONTRACT_ID, answer(2));
    expect((await store.load(CONTRACT_ID)).meta).toEqual(answer(2));
    await fs.writeFile(path.join(folder, 'meta.jsonl'), 'oops\n');
    expect((await store.load(CONTRACT_ID)).meta).toEqual(answer(1));
    await fs.writeFile(path.join(folder, 'meta.json'), 'oops');
    expect((await store.load(CONTRACT_ID)).meta).toBeUndefined();
    const skipped = `${path.join(folder, 'meta.jsonl')}:1: not JSON; skipped`;
    expect(warnings).toEqual([
      skipped,
      skipped,
      `${path.join(folder, 'meta.json')}: not JSON; ignored`,
    ]);
  });
});
