import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileToolOutputStore } from '@toolmask/core/storage';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createPathMapper,
  createRelocatedStore,
  shownProjectTempDir,
} from './shown-output-folder.js';

const work = mkdtempSync(join(tmpdir(), 'toolmask-shown-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the shown output folder of a replay', () => {
  it('is fixed per strategy', () => {
    expect(shownProjectTempDir('toolmask')).toBe('/toolmask-replay/toolmask');
  });

  it('maps only paths under the shown folder', () => {
    const toReal = createPathMapper('/toolmask-replay/x', '/real/root');
    expect(toReal('/toolmask-replay/x')).toBe('/real/root');
    expect(toReal('/toolmask-replay/x/tool-outputs/a.txt')).toBe('/real/root/tool-outputs/a.txt');
    expect(toReal('/toolmask-replay/xy/a.txt')).toBeUndefined();
    expect(toReal('/toolmask-replay/x/../y/a.txt')).toBeUndefined();
    expect(toReal('/elsewhere/a.txt')).toBeUndefined();
  });

  it('the store writes under the real folder and answers with the shown path', async () => {
    const store = createRelocatedStore(createFileToolOutputStore(), '/toolmask-replay/t', work);
    const saved = await store.save('/toolmask-replay/t/tool-outputs/session-1', 'a.txt', 'full');
    expect(saved).toBe('/toolmask-replay/t/tool-outputs/session-1/a.txt');
    expect(readFileSync(join(work, 'tool-outputs', 'session-1', 'a.txt'), 'utf8')).toBe('full');
    await expect(store.save('/tmp/elsewhere', 'a.txt', 'x')).rejects.toThrow(/outside/);
  });
});
