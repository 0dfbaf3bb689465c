/**
 * One `toolmask gateway` per state folder, held for the process's life: `<stateDir>/gateway.lock`,
 * holding the holder's pid. Reading `gateway.json` alone (already-running.ts) is a check then an
 * act: two gateways started at the same instant both passed it. A lock whose holder is gone
 * (killed) is taken over.
 *
 * Two races are closed here:
 * - **A lock seen before its pid is written.** The lock appears with its content already in it:
 *   the pid is written to a file of this process's own, which is then hard-linked to the lock's
 *   name (a link fails when the name exists, atomically, like `O_EXCL`).
 * - **Two takeovers of one stale lock.** Removing a stale lock and creating a new one are two
 *   steps: a second gateway that saw the same stale lock could remove the first one's new lock.
 *   So a takeover first holds `gateway.lock.takeover` (created `O_EXCL`), looks at the lock again
 *   under it, and removes it only if it is still the same file (device, inode, change time and
 *   pid) that was seen stale. A lock that is missing is never "taken over": its name may be linked by another gateway
 *   at any moment, so the next attempt simply creates it. A takeover file left by a process killed
 *   mid-takeover is removed once older than `TAKEOVER_STALE_MS`.
 */
import { randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ensurePrivateDirectory } from '@toolmask/core/storage';
import { isProcessAlive } from '@toolmask/core/utils';
import { failure } from '../../cli-error.js';

export const STATE_LOCK_FILE = 'gateway.lock';
const TAKEOVER_SUFFIX = '.takeover';
/** A takeover takes milliseconds; one older than this was left by a process that died in it. */
const TAKEOVER_STALE_MS = 5_000;
/** Tries before giving up while other gateways take the same stale lock over. */
const ATTEMPTS = 100;
const RETRY_MS = 20;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One lock file as seen: which file it is, and the pid it names (none when not a pid). */
interface SeenLock {
  identity: string;
  holder: number | undefined;
}

/** The lock as it is now; undefined when there is none. Read through one handle, so the pid and
 * the identity belong to the same file. */
async function seeLock(file: string): Promise<SeenLock | undefined> {
  const handle = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW).catch((error) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  });
  if (!handle) return undefined;
  try {
    const stats = await handle.stat({ bigint: true });
    const holder = Number((await handle.readFile('utf8')).trim());
    return {
      // The inode of a removed lock may be reused at once by the next one: its change time (ns)
      // and its pid (a live one, where the stale lock's was not) tell them apart.
      identity: `${stats.dev}:${stats.ino}:${stats.ctimeNs}:${holder}`,
      holder: Number.isSafeInteger(holder) && holder > 0 ? holder : undefined,
    };
  } finally {
    await handle.close();
  }
}

/** The pid a lock names; undefined when it names none (missing, or not a pid). */
async function holderOf(file: string): Promise<number | undefined> {
  return (await seeLock(file))?.holder;
}

/** Creates the lock with this pid in it, or returns false when it exists. */
async function createLock(file: string): Promise<boolean> {
  // Its own name per call: two gateways of one process (tests) never share it.
  const own = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await fs.writeFile(own, `${process.pid}\n`, { mode: 0o600, flag: 'w' });
  try {
    await fs.link(own, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await fs.rm(own, { force: true });
  }
}

/**
 * Removes the lock if it is still the `stale` file, under the takeover file; false when another
 * takeover is under way (try again).
 */
async function takeOver(file: string, stale: SeenLock): Promise<boolean> {
  const takeover = `${file}${TAKEOVER_SUFFIX}`;
  try {
    const handle = await fs.open(
      takeover,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    await handle.close();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const since = await fs.stat(takeover).then(
      (stats) => Date.now() - stats.mtimeMs,
      () => 0,
    );
    if (since > TAKEOVER_STALE_MS) await fs.rm(takeover, { force: true });
    return false;
  }
  try {
    // Only a takeover removes another's lock, and we hold the takeover: a file with the same
    // identity now is still the stale one.
    if ((await seeLock(file))?.identity === stale.identity) await fs.rm(file, { force: true });
    return true;
  } finally {
    await fs.rm(takeover, { force: true });
  }
}

/** Takes the state folder's lock; resolves to its release. Refuses (exit 1) while another holds it. */
export async function holdStateLock(stateDir: string): Promise<() => Promise<void>> {
  await ensurePrivateDirectory(stateDir, { root: stateDir });
  const file = path.join(stateDir, STATE_LOCK_FILE);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (await createLock(file)) {
      return async () => {
        // Only our own lock: a stale one taken over by another gateway is theirs now.
        if ((await holderOf(file)) === process.pid) await fs.rm(file, { force: true });
      };
    }
    const seen = await seeLock(file);
    // Gone since the link failed (released, or taken over): try to create it again at once.
    if (!seen) continue;
    const holder = seen.holder;
    if (holder !== undefined && isProcessAlive(holder)) {
      throw failure(
        `a gateway is already running (or starting) for ${stateDir}: pid ${holder} holds ${file}.\n` +
          `  Or run a second one on purpose: with its own --state-dir DIR, or with --allow-second.`,
      );
    }
    // Its holder is gone (or it names none): the lock is stale.
    if (!(await takeOver(file, seen))) await pause(RETRY_MS);
  }
  throw failure(`could not take ${file}: other gateways kept taking it over meanwhile`);
}
