/**
 * One `toolmask gateway` per state folder, held for the process's life: `<stateDir>/gateway.lock`,
 * created O_EXCL with the holder's pid. Reading `gateway.json` alone (already-running.ts) is a
 * check then an act: two gateways started at the same instant both passed it. A lock whose holder
 * is gone (killed) is taken over.
 */
import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ensurePrivateDirectory } from '@toolmask/core/storage';
import { isProcessAlive } from '@toolmask/core/utils';
import { failure } from '../../cli-error.js';

export const STATE_LOCK_FILE = 'gateway.lock';

/** Takes the state folder's lock; resolves to its release. Refuses (exit 1) while another holds it. */
export async function holdStateLock(stateDir: string): Promise<() => Promise<void>> {
  await ensurePrivateDirectory(stateDir, { root: stateDir });
  const file = path.join(stateDir, STATE_LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await fs.open(
        file,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return async () => {
        // Only our own lock: a stale one taken over by another gateway is theirs now.
        const holder = Number((await fs.readFile(file, 'utf8').catch(() => '')).trim());
        if (holder === process.pid) await fs.rm(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number((await fs.readFile(file, 'utf8').catch(() => '')).trim());
    if (Number.isSafeInteger(holder) && holder > 0 && isProcessAlive(holder)) {
      throw failure(
        `a gateway is already running (or starting) for ${stateDir}: pid ${holder} holds ${file}.\n` +
          `  Or run a second one on purpose: with its own --state-dir DIR, or with --allow-second.`,
      );
    }
    // Its holder is gone: the lock is stale.
    await fs.rm(file, { force: true });
  }
  throw failure(`could not take ${file}: another gateway took it meanwhile`);
}
