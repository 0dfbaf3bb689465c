import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { usageRecordOf } from '../test-utils/usage-records.js';
import { createFileUsageStore } from './file-usage-store.js';

const cleanups = cleanUpAfterEach();
const AT = Date.parse('2026-12-03T10:00:00Z');

const record = (conversationId: string, at: number) => usageRecordOf({ conversationId, at });

async function stateDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-usage-store-'));
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('the file usage store after a torn day file (a crash mid-append)', () => {
  it('keeps the records appended after the torn line', async () => {
    const dir = await stateDir();
    const before = createFileUsageStore(dir);
    await before.append(record('aaaaaaaaaaaaaaaa', AT));
    const dayFile = path.join(dir, 'usage', '2026-12-03.jsonl');
    // The next record's line, cut short by the crash.
    const whole = JSON.stringify(record('bbbbbbbbbbbbbbbb', AT + 1));
    await fs.appendFile(dayFile, whole.slice(0, 40));

    const after = createFileUsageStore(dir);
    await after.append(record('cccccccccccccccc', AT + 2));
    await after.append(record('dddddddddddddddd', AT + 3));
    const listed = await createFileUsageStore(dir).list();
    expect(listed.map((entry) => entry.conversationId)).toEqual([
      'aaaaaaaaaaaaaaaa',
      'cccccccccccccccc',
      'dddddddddddddddd',
    ]);
    // One new line ends the torn line, and nothing more is added to the file.
    expect((await fs.readFile(dayFile, 'utf8')).split('\n')).toHaveLength(5);
  });

  it('adds no line to a day file that ends whole', async () => {
    const dir = await stateDir();
    await createFileUsageStore(dir).append(record('aaaaaaaaaaaaaaaa', AT));
    await createFileUsageStore(dir).append(record('bbbbbbbbbbbbbbbb', AT + 1));
    const text = await fs.readFile(path.join(dir, 'usage', '2026-12-03.jsonl'), 'utf8');
    expect(text.split('\n')).toEqual([expect.any(String), expect.any(String), '']);
  });
});
