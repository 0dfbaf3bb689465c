/**
 * The behaviour every `SharedOutputStore` (stores.ts) keeps, as one vitest suite that each store's
 * test file runs against a real backend:
 *
 *   describeSharedOutputStore('s3', async () => ({ store, cleanup }));
 *
 * `open` is called before each test and must give a store with nothing saved yet (a fresh prefix,
 * folder or key space); after the test the suite calls the store's `close` (if any), then
 * `cleanup`. The suite checks the layout (saves return
 * `path.join(directory, fileName)` under `root`, reads take `tool-outputs/<conversation>/<file>`),
 * exact bytes, refusals, concurrency and `prune`. "Nothing saved" is checked through the store
 * itself: `prune` with a limit in the future must then find nothing to remove.
 *
 * Test code: it calls `describe`/`it`, so only a test file imports it.
 */
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TOOL_OUTPUTS_DIR, outputFileName, sessionFolderName } from '@toolmask/core/storage';
import type { SharedOutputStore } from '../state/stores.js';

export interface OpenedOutputStore {
  store: SharedOutputStore;
  cleanup(): Promise<void>;
}

/** Far enough ahead that any clock skew or timestamp rounding of a backend counts as "before". */
const FUTURE_MS = 10 * 60_000;
const FIVE_MB = 5 * 1024 * 1024;

/** A text of exactly `bytes` UTF-8 bytes with multi-byte characters throughout. */
function bigText(bytes: number): string {
  const unit = 'line é 日本 🎉\n';
  const unitBytes = Buffer.byteLength(unit, 'utf8');
  const text = unit.repeat(Math.floor(bytes / unitBytes));
  return text + 'x'.repeat(bytes - Buffer.byteLength(text, 'utf8'));
}

export function describeSharedOutputStore(
  name: string,
  open: () => Promise<OpenedOutputStore>,
): void {
  describe(`SharedOutputStore contract: ${name}`, () => {
    const opened: { current?: OpenedOutputStore } = {};
    const store = () => opened.current?.store as SharedOutputStore;

    beforeEach(async () => {
      opened.current = await open();
    });

    afterEach(async () => {
      await opened.current?.store.close();
      await opened.current?.cleanup();
      opened.current = undefined;
    });

    describeLayoutAndBytes(store);
    describeRefusals(store);
    describePrune(store);
  });
}

const folderOf = (store: SharedOutputStore, conversation: string) =>
  path.join(store.root, TOOL_OUTPUTS_DIR, sessionFolderName(conversation));
const relativeOf = (conversation: string, fileName: string) =>
  `${TOOL_OUTPUTS_DIR}/${sessionFolderName(conversation)}/${fileName}`;

/** Saves `text` as the output of `callId` in `conversation`; returns its relative path. */
async function saveOutput(
  store: SharedOutputStore,
  conversation: string,
  callId: string,
  text: string,
): Promise<string> {
  const fileName = outputFileName('run_shell_command', callId, text);
  const directory = folderOf(store, conversation);
  const saved = await store.save(directory, fileName, text);
  expect(saved).toBe(path.join(directory, fileName));
  return relativeOf(conversation, fileName);
}

/** Everything saved, removed: what a prune far in the future finds. */
const pruneEverything = (store: SharedOutputStore) => store.prune(Date.now() + FUTURE_MS);

function describeLayoutAndBytes(store: () => SharedOutputStore): void {
  it('has an absolute root', () => {
    expect(path.isAbsolute(store().root)).toBe(true);
  });

  it('returns path.join(directory, fileName), under root', async () => {
    const fileName = outputFileName('read_file', 'call-1', 'hello');
    const directory = folderOf(store(), 'conv-a');
    const saved = await store().save(directory, fileName, 'hello');
    expect(saved).toBe(path.join(directory, fileName));
    expect(saved.startsWith(`${store().root}${path.sep}`)).toBe(true);
    expect(path.relative(store().root, saved).split(path.sep).join('/')).toBe(
      relativeOf('conv-a', fileName),
    );
  });

  it.each([
    ['ASCII text', 'total 48\ndrwxr-xr-x  2 user user 4096 src\n'],
    ['multi-byte UTF-8', 'héllo wörld — 日本語のテキスト 🎉🚀 \u0000 \uFEFF end'],
    ['empty text', ''],
  ])('reads back the exact bytes: %s', async (_label, text) => {
    const relative = await saveOutput(store(), 'conv-bytes', 'call-1', text);
    const read = await store().read(relative);
    expect(read).toBeInstanceOf(Buffer);
    expect(read?.equals(Buffer.from(text, 'utf8'))).toBe(true);
  });

  it('reads back a 5 MB text byte for byte', async () => {
    const text = bigText(FIVE_MB);
    const fileName = outputFileName('run_shell_command', 'call-big', text);
    await store().save(folderOf(store(), 'conv-big'), fileName, text, FIVE_MB);
    const read = await store().read(relativeOf('conv-big', fileName));
    expect(read?.length).toBe(FIVE_MB);
    expect(read?.equals(Buffer.from(text, 'utf8'))).toBe(true);
  });

  it('reads a missing output as undefined', async () => {
    await saveOutput(store(), 'conv-present', 'call-1', 'present');
    expect(await store().read(relativeOf('conv-present', 'tool.call-2.0123456789abcdef.txt'))).toBe(
      undefined,
    );
    expect(await store().read(relativeOf('conv-absent', 'tool.call-1.0123456789abcdef.txt'))).toBe(
      undefined,
    );
  });

  it('takes the same output saved twice, one after the other and at once', async () => {
    const text = 'same output\n';
    const first = await saveOutput(store(), 'conv-twice', 'call-1', text);
    const second = await saveOutput(store(), 'conv-twice', 'call-1', text);
    expect(second).toBe(first);
    await Promise.all([1, 2, 3, 4].map(() => saveOutput(store(), 'conv-twice', 'call-1', text)));
    expect((await store().read(first))?.toString('utf8')).toBe(text);
    expect(await pruneEverything(store())).toBe(1);
  });

  it('saves different outputs concurrently, all of them', async () => {
    const outputs = Array.from({ length: 24 }, (_, index) => ({
      conversation: `conv-${index % 3}`,
      callId: `call-${index}`,
      text: `output ${index}: ${'ü'.repeat(index * 100)}`,
    }));
    const relatives = await Promise.all(
      outputs.map((output) => saveOutput(store(), output.conversation, output.callId, output.text)),
    );
    for (const [index, relative] of relatives.entries()) {
      expect((await store().read(relative))?.toString('utf8')).toBe(outputs[index]?.text);
    }
    expect(await pruneEverything(store())).toBe(outputs.length);
  });
}

function describeRefusals(store: () => SharedOutputStore): void {
  describe('refuses what is not an output under root, and saves nothing', () => {
    const fileName = outputFileName('read_file', 'call-1', 'text');
    const directories: Array<[string, (root: string) => string]> = [
      ['a folder outside root', (root) => path.join(path.dirname(root), 'elsewhere', 'x')],
      ['root itself', (root) => root],
      ['the tool-outputs folder itself', (root) => path.join(root, TOOL_OUTPUTS_DIR)],
      ['another folder of root', (root) => path.join(root, 'other', 'session-x')],
      ['a nested folder', (root) => path.join(root, TOOL_OUTPUTS_DIR, 'session-x', 'deeper')],
      ['a path with ..', (root) => `${root}/${TOOL_OUTPUTS_DIR}/session-x/../../../outside`],
      ['a path through .. back inside', (root) => `${root}/${TOOL_OUTPUTS_DIR}/a/../session-x`],
      ['a relative folder', () => `${TOOL_OUTPUTS_DIR}/session-x`],
      ['a hidden conversation folder', (root) => path.join(root, TOOL_OUTPUTS_DIR, '.hidden')],
    ];
    it.each(directories)('directory: %s', async (_label, directoryOf) => {
      await expect(store().save(directoryOf(store().root), fileName, 'text')).rejects.toThrow();
      expect(await pruneEverything(store())).toBe(0);
    });

    const fileNames = ['..', '.', '', '../escape.txt', 'a/b.txt', '/etc/passwd', '.hidden.txt'];
    it.each(fileNames)('file name %j', async (badName) => {
      await expect(
        store().save(folderOf(store(), 'conv-names'), badName, 'text'),
      ).rejects.toThrow();
      expect(await pruneEverything(store())).toBe(0);
    });

    const relatives = [
      '../outside.txt',
      '/etc/passwd',
      `${TOOL_OUTPUTS_DIR}/session-x/../../../outside.txt`,
      `${TOOL_OUTPUTS_DIR}/../${TOOL_OUTPUTS_DIR}/session-x/${fileName}`,
      `${TOOL_OUTPUTS_DIR}/session-x`,
      `${TOOL_OUTPUTS_DIR}/session-x/deeper/${fileName}`,
      `other/session-x/${fileName}`,
      `${TOOL_OUTPUTS_DIR}/session-x/.hidden.txt`,
      '',
    ];
    it.each(relatives)('read of %j', async (relative) => {
      await expect(store().read(relative)).rejects.toThrow();
    });
  });
}

function describePrune(store: () => SharedOutputStore): void {
  describe('prune(beforeMs)', () => {
    it('keeps outputs saved after beforeMs', async () => {
      const beforeMs = Date.now() - 1;
      const relatives = [
        await saveOutput(store(), 'conv-p', 'call-1', 'one'),
        await saveOutput(store(), 'conv-p', 'call-2', 'two'),
        await saveOutput(store(), 'conv-q', 'call-3', 'three'),
      ];
      expect(await store().prune(beforeMs)).toBe(0);
      for (const relative of relatives) expect(await store().read(relative)).toBeDefined();
    });

    it('removes outputs saved before beforeMs and says how many', async () => {
      const relatives = [
        await saveOutput(store(), 'conv-p', 'call-1', 'one'),
        await saveOutput(store(), 'conv-q', 'call-2', 'two'),
      ];
      expect(await pruneEverything(store())).toBe(2);
      for (const relative of relatives) expect(await store().read(relative)).toBe(undefined);
      expect(await pruneEverything(store())).toBe(0);
    });

    it('finds nothing in an empty store, and saves work after a prune', async () => {
      expect(await pruneEverything(store())).toBe(0);
      await saveOutput(store(), 'conv-p', 'call-1', 'one');
      expect(await pruneEverything(store())).toBe(1);
      const relative = await saveOutput(store(), 'conv-p', 'call-1', 'one');
      expect((await store().read(relative))?.toString('utf8')).toBe('one');
    });
  });
}
