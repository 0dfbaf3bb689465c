/**
 * The gateway's state folder never writes or prunes through a link planted in it (issue 21, hole
 * 8): a link at `usage/<day>.jsonl`, a linked `usage/` or `conversations/`, a linked
 * `conversations/<id>/`. Each write is refused (the link's target is unchanged), and the gateway
 * answers every request anyway, logging what it could not record.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DAY_MS } from '@toolmask/core/storage';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { shellCallingUpstream } from '@toolmask/test-support/fake-upstream';
import {
  gatewayFixture,
  runGeminiClient,
  settled,
  shellOutput,
  startTestGateway,
} from '../test-utils/gemini-client.js';
import { createFileConversationStore } from './file-conversation-store.js';
import { createFileUsageStore } from './file-usage-store.js';
import type { ConversationMeta, DecisionRecord } from './stores.js';
import { usageRecordOf } from '../test-utils/usage-records.js';

const cleanups = cleanUpAfterEach();

const ID = 'abcdef0123456789';
const dayOf = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);

const usageRecord = (at: number) => usageRecordOf({ at, conversationId: ID });

const decision: DecisionRecord = { kind: 'kept', key: 'k', toolName: 't', callId: 'c', at: 1 };
const meta: ConversationMeta = { startedAt: 1, client: 'other', model: 'm' };

/** A state folder, and beside it a folder with a file the links point at. */
async function stateWithOutside() {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-state-links-'));
  cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
  const stateDir = path.join(root, 'state');
  const outside = path.join(root, 'outside');
  await fs.mkdir(stateDir, { mode: 0o700 });
  await fs.mkdir(outside);
  await fs.writeFile(path.join(outside, 'victim.txt'), 'untouched\n');
  return { stateDir, outside };
}

const victim = (outside: string) => fs.readFile(path.join(outside, 'victim.txt'), 'utf8');

describe('the state folder refuses planted links', () => {
  it('a usage append to a link at usage/<day>.jsonl is refused; its target is unchanged', async () => {
    const { stateDir, outside } = await stateWithOutside();
    const at = Date.now();
    await fs.mkdir(path.join(stateDir, 'usage'), { mode: 0o700 });
    await fs.symlink(
      path.join(outside, 'victim.txt'),
      path.join(stateDir, 'usage', `${dayOf(at)}.jsonl`),
    );
    const usage = createFileUsageStore(stateDir);
    await expect(usage.append(usageRecord(at))).rejects.toMatchObject({ code: 'ELOOP' });
    expect(await victim(outside)).toBe('untouched\n');
  });

  it('a linked usage/ is refused for appends and for pruning', async () => {
    const { stateDir, outside } = await stateWithOutside();
    const old = Date.now() - 40 * DAY_MS;
    await fs.writeFile(path.join(outside, `${dayOf(old)}.jsonl`), 'theirs\n');
    await fs.symlink(outside, path.join(stateDir, 'usage'));
    const usage = createFileUsageStore(stateDir);
    await expect(usage.append(usageRecord(Date.now()))).rejects.toMatchObject({
      code: 'ENOTDIR',
    });
    await expect(usage.prune(Date.now() - 30 * DAY_MS)).rejects.toMatchObject({
      code: 'ENOTDIR',
    });
    expect((await fs.readdir(outside)).sort()).toEqual([`${dayOf(old)}.jsonl`, 'victim.txt']);
  });

  it('a linked conversations/ is refused for decisions, meta and pruning; nothing goes through', async () => {
    const { stateDir, outside } = await stateWithOutside();
    const theirs = path.join(outside, 'ffffffff00000000');
    await fs.mkdir(theirs);
    await fs.writeFile(path.join(theirs, 'decisions.jsonl'), 'theirs\n');
    const long = Date.now() - 40 * DAY_MS;
    await fs.utimes(theirs, long / 1000, long / 1000);
    await fs.utimes(path.join(theirs, 'decisions.jsonl'), long / 1000, long / 1000);
    await fs.symlink(outside, path.join(stateDir, 'conversations'));

    const conversations = createFileConversationStore(stateDir);
    await expect(conversations.appendDecisions(ID, [decision])).rejects.toMatchObject({
      code: 'ENOTDIR',
    });
    await expect(conversations.saveMeta(ID, meta)).rejects.toMatchObject({ code: 'ENOTDIR' });
    await expect(conversations.prune(Date.now() - 30 * DAY_MS, new Set())).rejects.toMatchObject({
      code: 'ENOTDIR',
    });
    expect((await fs.readdir(outside)).sort()).toEqual(['ffffffff00000000', 'victim.txt']);
    expect(await fs.readdir(theirs)).toEqual(['decisions.jsonl']);
  });

  it('a linked conversations/<id>/ is refused; nothing goes through', async () => {
    const { stateDir, outside } = await stateWithOutside();
    await fs.mkdir(path.join(stateDir, 'conversations'), { mode: 0o700 });
    await fs.symlink(outside, path.join(stateDir, 'conversations', ID));
    const conversations = createFileConversationStore(stateDir);
    await expect(conversations.appendDecisions(ID, [decision])).rejects.toMatchObject({
      code: 'ENOTDIR',
    });
    await expect(conversations.saveMeta(ID, meta)).rejects.toMatchObject({ code: 'ENOTDIR' });
    expect(await fs.readdir(outside)).toEqual(['victim.txt']);
  });

  it('plain writes still work: folders 0700, files 0600, read back', async () => {
    const { stateDir } = await stateWithOutside();
    const previous = process.umask(0);
    try {
      const at = Date.now();
      await createFileUsageStore(stateDir).append(usageRecord(at));
      const conversations = createFileConversationStore(stateDir);
      await conversations.appendDecisions(ID, [decision]);
      await conversations.saveMeta(ID, meta);
      const folder = path.join(stateDir, 'conversations', ID);
      for (const each of [path.join(stateDir, 'usage'), path.join(stateDir, 'conversations')]) {
        expect((await fs.lstat(each)).mode & 0o777).toBe(0o700);
      }
      expect((await fs.lstat(folder)).mode & 0o777).toBe(0o700);
      for (const file of [
        path.join(stateDir, 'usage', `${dayOf(at)}.jsonl`),
        path.join(folder, 'decisions.jsonl'),
        path.join(folder, 'meta.jsonl'),
      ]) {
        expect((await fs.lstat(file)).mode & 0o777).toBe(0o600);
      }
      expect(await createFileConversationStore(stateDir).load(ID)).toEqual({
        decisions: [decision],
        meta,
      });
      expect(await createFileUsageStore(stateDir).list()).toEqual([usageRecord(at)]);
    } finally {
      process.umask(previous);
    }
  });

  it('the gateway answers every request with links planted, and logs what it could not write', async () => {
    const { stateDir, outside } = await stateWithOutside();
    await fs.mkdir(path.join(stateDir, 'usage'), { mode: 0o700 });
    // Today's and tomorrow's day file (a run across midnight UTC), both linked to the same file.
    for (const at of [Date.now(), Date.now() + DAY_MS]) {
      await fs.symlink(
        path.join(outside, 'victim.txt'),
        path.join(stateDir, 'usage', `${dayOf(at)}.jsonl`),
      );
    }
    const elsewhere = path.join(outside, 'conversations');
    await fs.mkdir(elsewhere);
    await fs.symlink(elsewhere, path.join(stateDir, 'conversations'));
    const lines: string[] = [];
    const fixture = await gatewayFixture({
      toolProtectionThreshold: 4_000,
      minPrunableTokensThreshold: 2_000,
    });
    cleanups.push(fixture.cleanup);
    const upstream = await shellCallingUpstream(3);
    cleanups.push(() => upstream.close());
    const running = await startTestGateway({
      stateDir,
      settingsFile: fixture.settingsFile,
      upstreams: { gemini: upstream.url },
      log: (line) => lines.push(line),
    });
    cleanups.push(() => running.close());

    const { answers } = await runGeminiClient({
      url: `${running.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
      prompt: 'build it',
      outputFor: (call) => ({ output: shellOutput(call.id) }),
      maxRequests: 8,
    });
    await settled(running);

    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(await victim(outside)).toBe('untouched\n');
    expect(await fs.readdir(elsewhere)).toEqual([]);
    const refused = (what: string) =>
      lines.filter((line) => line.includes(what) && line.includes('refusing to write through it'));
    expect(refused('could not record usage')).toHaveLength(answers.length);
    expect(refused('could not save the state of conversation')).toHaveLength(answers.length);
    // The masking decisions could not be saved after their requests were sent: said, and
    // tried again with the next request (they stay in use: the same bytes each time).
    expect(refused('tried again with its next request').length).toBeGreaterThan(0);
  });
});
