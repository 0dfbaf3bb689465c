/**
 * Retention of the gateway's state folder: at start, usage days, conversations and output folders
 * older than `retentionDays` go and the rest stays; 0 keeps everything.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DAY_MS } from '@toolmask/core/storage';
import { createGateway } from '../gateway.js';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { shellSessionThroughGateway } from '../test-utils/shell-session.js';
import { createFileUsageStore } from './file-usage-store.js';
import { usageRecordOf } from '../test-utils/usage-records.js';

const cleanups = cleanUpAfterEach();

/** A state folder with one masked conversation of today, and an old usage day file. */
async function stateWithHistory() {
  const { running, stateDir } = await shellSessionThroughGateway(
    {
      settings: { toolProtectionThreshold: 4_000, minPrunableTokensThreshold: 2_000 },
      steps: 5,
      usage: () => ({ prompt: 100, cached: 0 }),
    },
    cleanups,
  );
  await running.close();
  // A record from 40 days ago, in its own day file.
  await createFileUsageStore(stateDir).append(
    usageRecordOf({ at: Date.now() - 40 * DAY_MS, conversationId: 'aaaaaaaaaaaaaaaa' }),
  );
  return stateDir;
}

const list = (folder: string) => fs.readdir(folder).catch(() => [] as string[]);

async function startAndStop(stateDir: string, retentionDays: number | undefined, nowMs: number) {
  const gateway = createGateway({
    stateDir,
    ...(retentionDays !== undefined ? { retentionDays } : {}),
    _internal: { now: () => nowMs },
  });
  await gateway.close(); // waits for the first retention run
}

describe('retention of the state folder', () => {
  it('at start, removes what is older than retentionDays and keeps the rest', async () => {
    const stateDir = await stateWithHistory();
    expect(await list(path.join(stateDir, 'usage'))).toHaveLength(2);
    expect(await list(path.join(stateDir, 'conversations'))).toHaveLength(1);
    expect(await list(path.join(stateDir, 'tool-outputs'))).toHaveLength(1);

    await startAndStop(stateDir, undefined, Date.now());
    expect(await list(path.join(stateDir, 'usage'))).toHaveLength(1);
    expect(await list(path.join(stateDir, 'conversations'))).toHaveLength(1);
    expect(await list(path.join(stateDir, 'tool-outputs'))).toHaveLength(1);

    // 0 keeps everything, whatever its age.
    await startAndStop(stateDir, 0, Date.now() + 400 * DAY_MS);
    expect(await list(path.join(stateDir, 'conversations'))).toHaveLength(1);

    // Seen from 31 days later, today's session is past a 30-day limit.
    await startAndStop(stateDir, 30, Date.now() + 31 * DAY_MS);
    expect(await list(path.join(stateDir, 'usage'))).toHaveLength(0);
    expect(await list(path.join(stateDir, 'conversations'))).toHaveLength(0);
    expect(await list(path.join(stateDir, 'tool-outputs'))).toHaveLength(0);
  });
});
