/**
 * The history a pass returns: new `Content` objects only for the entries that changed, each with
 * a new `parts` array in which the masked parts replace the old ones; every other entry, and
 * every other part, is the same object as before (hosts and the ledger recognise them by
 * identity). The indices of the changed entries come sorted.
 */
import type { Content } from '../maskingTypes.js';
import type { MaskedPart } from './outputAttempts.js';

export interface ReplacedHistory {
  history: readonly Content[];
  /** Indices of the entries that changed, ascending. */
  changedIndices: number[];
}

/** `history` with the `masked` parts in place (see the module comment). */
export function replaceMaskedParts(
  history: readonly Content[],
  masked: readonly MaskedPart[],
): ReplacedHistory {
  if (masked.length === 0) return { history, changedIndices: [] };
  const byContent = new Map<number, MaskedPart[]>();
  for (const item of masked) {
    const list = byContent.get(item.ref.contentIndex) ?? [];
    list.push(item);
    byContent.set(item.ref.contentIndex, list);
  }
  const next = history.slice();
  for (const [contentIndex, items] of byContent) {
    const content = history[contentIndex] as Content;
    const parts = (content.parts ?? []).slice();
    for (const item of items) parts[item.ref.partIndex] = item.part;
    next[contentIndex] = { ...content, parts };
  }
  return { history: next, changedIndices: [...byContent.keys()].sort((a, b) => a - b) };
}
