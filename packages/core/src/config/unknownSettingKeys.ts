/**
 * Keys under `experimental.toolOutputMasking` that toolmask does not know: a misspelled setting
 * (`toolProtectionThresold`) is otherwise silently ignored. They are reported as warnings, never
 * errors (gemini-cli adds keys over time, and a newer settings file must not break an older
 * toolmask), with the closest known key when one is close enough to be a typo.
 */
import { SETTINGS_PATH, SETTING_KEYS } from './toolOutputMaskingSettings.js';

export interface UnknownSettingKey {
  key: string;
  /** The known key it most likely meant, if any. */
  suggestion?: string;
}

/** Edit distance with adjacent transpositions (optimal string alignment), case-insensitive. */
function distance(left: string, right: string): number {
  const a = left.toLowerCase();
  const b = right.toLowerCase();
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = rows[i] as number[];
      const above = rows[i - 1] as number[];
      row[j] = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/** The known key `key` most likely meant: within a third of its length in edits (at least 2). */
export function closestSettingKey(key: string): string | undefined {
  // Long keys are not typos of ours; skip the quadratic work on them.
  if (key.length > 100) return undefined;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const known of SETTING_KEYS) {
    const d = distance(key, known);
    if (d < bestDistance) {
      best = known;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}

/** The unknown keys of a settings block (nothing when the block is not an object). */
export function unknownSettingKeys(block: unknown): UnknownSettingKey[] {
  if (block === null || typeof block !== 'object' || Array.isArray(block)) return [];
  const known = new Set<string>(SETTING_KEYS);
  return Object.keys(block)
    .filter((key) => !known.has(key))
    .map((key) => {
      const suggestion = closestSettingKey(key);
      return suggestion ? { key, suggestion } : { key };
    });
}

/**
 * `Unknown setting experimental.toolOutputMasking.x in FILE (ignored); did you mean y?` (`keysAt`
 * `''`: the key at the file's top level, a `toolmask.json`).
 */
export function describeUnknownSettingKey(
  unknown: UnknownSettingKey,
  file: string,
  keysAt: string = SETTINGS_PATH,
): string {
  const hint = unknown.suggestion
    ? `; did you mean ${unknown.suggestion}?`
    : `; known keys: ${SETTING_KEYS.join(', ')}.`;
  const dotted = keysAt ? `${keysAt}.${unknown.key}` : unknown.key;
  return `Unknown setting ${dotted} in ${file} (ignored)${hint}`;
}
