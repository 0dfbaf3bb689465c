/**
 * gemini-cli's `GEMINI_EXP` file: experiment flags it reads instead of asking the server. toolmask's
 * file sets the two thresholds of gemini's own masking out of reach (two maskers on one history
 * fight: docs/benchmarks.md, 4d), after the person's own flags when they have a file of their own
 * (theirs kept, ours in place of any of theirs with the same id).
 */
import { promises as fs } from 'node:fs';
import { CLIENT_MASKING_OFF_FLAGS } from '@toolmask/gateway';

/** The text of toolmask's experiments file, given the person's own `GEMINI_EXP` file, if any. */
export async function experimentsText(ownFile: string | undefined): Promise<string> {
  let own: { flags?: unknown[]; experimentIds?: unknown[] } = {};
  if (ownFile) {
    try {
      own = JSON.parse(await fs.readFile(ownFile, 'utf8')) as typeof own;
    } catch {
      own = {};
    }
  }
  const ours = new Set<number>(CLIENT_MASKING_OFF_FLAGS.map((flag) => flag.flagId));
  const flags = (Array.isArray(own.flags) ? own.flags : []).filter(
    (flag) => !ours.has((flag as { flagId?: number } | null)?.flagId ?? -1),
  );
  return (
    JSON.stringify({
      flags: [...flags, ...CLIENT_MASKING_OFF_FLAGS],
      experimentIds: Array.isArray(own.experimentIds) ? own.experimentIds : [],
    }) + '\n'
  );
}
