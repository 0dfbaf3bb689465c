/**
 * gemini-cli's `GEMINI_EXP` file: experiment flags it reads instead of asking the server. toolmask's
 * file sets the two thresholds of gemini's own masking out of reach (two maskers on one history
 * fight: docs/benchmarks.md, 4d), after the person's own flags when they have a file of their own
 * (theirs kept, ours in place of any of theirs with the same id).
 */
import { readSettingsText } from '@toolmask/core/settings';
import { CLIENT_MASKING_OFF_FLAGS } from '@toolmask/gateway';

/**
 * The text of toolmask's experiments file, given the person's own `GEMINI_EXP` file, if any. That
 * file is read only when it is a regular file of at most 1 MB (opened non-blocking: a FIFO never
 * hangs setup or a launch); one that cannot be read or parsed adds no flags.
 */
export async function experimentsText(ownFile: string | undefined): Promise<string> {
  let own: { flags?: unknown[]; experimentIds?: unknown[] } = {};
  if (ownFile) {
    try {
      own = JSON.parse(await readSettingsText(ownFile)) as typeof own;
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
