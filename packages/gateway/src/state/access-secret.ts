/**
 * The gateway's access secret: a random value in `<stateDir>/access-secret` (0600 in the 0700
 * state folder), required on what reads outputs or state (server/access.ts). The person who owns
 * the folder can read it, and so can their launchers and `toolmask setup`; another local account
 * cannot, though it can reach the gateway's port. Made once and kept, so a client set up for good
 * (an MCP server's headers in settings.json) still works after the gateway restarts.
 */
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { ensurePrivateDirectory, readIfExists, writeAtomically } from '@toolmask/core/files';

export const ACCESS_SECRET_FILE = 'access-secret';

const SECRET = /^[0-9a-f]{64}$/;

/** The state folder's secret, made now if it has none (or a damaged one). */
export async function loadAccessSecret(stateDir: string): Promise<string> {
  const file = path.join(stateDir, ACCESS_SECRET_FILE);
  const known = (await readIfExists(file))?.trim();
  if (known && SECRET.test(known)) return known;
  await ensurePrivateDirectory(stateDir, { root: stateDir });
  const made = randomBytes(32).toString('hex');
  await writeAtomically(file, `${made}\n`, { root: stateDir });
  // Two gateways starting at once: the file that stayed is the secret.
  const kept = (await readIfExists(file))?.trim();
  return kept && SECRET.test(kept) ? kept : made;
}
