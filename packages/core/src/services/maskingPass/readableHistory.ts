/**
 * A history as far as it can be read, for a pass that met an entry or a part that throws when
 * read (a getter, a revoked proxy): such a part is left whole and reported as `MALFORMED`, and the
 * rest of the pass goes on. Readable entries are kept as they are (the same objects), so the
 * ledger keeps recognising them between passes.
 */
import type { Content, MaskingFailure, Part } from '../maskingTypes.js';

/** A part or entry that could not be read (a throwing getter, a revoked proxy). */
export function malformed(message: string): MaskingFailure {
  return { toolName: '', callId: '', code: 'MALFORMED', message };
}

/**
 * The history as far as it can be read: an entry whose `parts` cannot be read becomes `{}`, a
 * part that cannot be read becomes `{}` (a getter that throws, a revoked proxy). Readable entries
 * are kept as they are (same objects), so the ledger keeps recognising them.
 */
export function readableHistory(history: readonly Content[]): Content[] {
  return Array.from({ length: history.length }, (_, index) => {
    try {
      const content = history[index] as Content;
      const parts: unknown = content?.parts;
      if (!Array.isArray(parts)) return content;
      let readable = true;
      const snapshot: Part[] = [];
      for (let partIndex = 0; partIndex < parts.length; partIndex++) {
        try {
          const part = parts[partIndex] as Part | null | undefined;
          snapshot.push(part?.functionResponse ? { functionResponse: part.functionResponse } : {});
        } catch {
          readable = false;
          snapshot.push({});
        }
      }
      return readable ? content : { parts: snapshot };
    } catch {
      return {};
    }
  });
}
