/**
 * Writes a masking pass's result back into a live `GeminiChat`.
 *
 * The pass runs on `client.getHistory()`: a merged, thought-stripped COPY of the chat's turns whose
 * `Part` objects are the live ones. The pass never restructures anything; it only replaces whole
 * part objects (a `functionResponse` part by one with a new `response`). So the write-back maps
 * each replaced part, by object identity, onto the live turns (`chat.agentHistory`), rebuilds
 * only the turns that hold such a part (same turn id, same part order, thought parts and
 * signatures untouched) and sets the turn list with `agentHistory.set`. Nothing is written when
 * nothing changed.
 *
 * The chat recording is deliberately left alone: it keeps every output in full, as the tool
 * returned it. `GeminiChat.setHistory` is not used because it appends a `$set` checkpoint of the
 * whole conversation to the recording on every masking event (measured: +1.8 MB on a 1.35 MB
 * recording over three events); see docs/integration.md for why the full recording is also the
 * right thing to resume from.
 *
 * A replacement that would change a function response's id or name, or turn it into something
 * else, is refused: a `functionCall` and its `functionResponse` are never separated.
 */
import type { Content, HistoryTurn, Part } from '@google/gemini-cli-core';
import type { MaskingResult } from '../services/maskingTypes.js';

export interface WriteBackResult {
  /** True when the live turns were replaced. */
  written: boolean;
  /** Live turns rebuilt with masked parts. */
  turnsChanged: number;
  /** Parts replaced in the live turns. */
  partsReplaced: number;
  /** Replacements refused because they would break a call/response pair. */
  refused: number;
  /** Replacements whose original part is no longer in the live history. */
  missed: number;
}

/** The slice of core's `GeminiChat` the write-back uses (public members in 0.61.0). */
export interface WritableChat {
  agentHistory: { get(): readonly HistoryTurn[]; set(turns: HistoryTurn[]): void };
}

const NOTHING: WriteBackResult = {
  written: false,
  turnsChanged: 0,
  partsReplaced: 0,
  refused: 0,
  missed: 0,
};

/** Same function response (id and name), or the same non-response kind of part. */
function keepsPairing(before: Part, after: Part | undefined): boolean {
  if (!after || typeof after !== 'object') return false;
  const was = before.functionResponse;
  const now = after.functionResponse;
  if (!was) return !now && !after.functionCall === !before.functionCall;
  return !!now && now.id === was.id && now.name === was.name;
}

/**
 * Old part -> new part, for every part the pass replaced in `before` (the entries listed in
 * `result.changedIndices` that are inside `before`).
 */
export function collectPartReplacements(
  before: readonly Content[],
  result: Pick<MaskingResult, 'newHistory' | 'changedIndices'>,
): { replacements: Map<Part, Part>; refused: number } {
  const replacements = new Map<Part, Part>();
  let refused = 0;
  for (const index of result.changedIndices) {
    const oldParts = before[index]?.parts;
    const newParts = result.newHistory[index]?.parts;
    if (!Array.isArray(oldParts) || !Array.isArray(newParts)) continue;
    if (oldParts.length !== newParts.length) {
      refused += oldParts.filter((part, j) => part !== newParts[j]).length;
      continue;
    }
    oldParts.forEach((oldPart, j) => {
      const newPart = newParts[j];
      if (oldPart === newPart) return;
      if (keepsPairing(oldPart, newPart)) replacements.set(oldPart, newPart as Part);
      else refused++;
    });
  }
  return { replacements, refused };
}

/** The live turns with replacements applied; unchanged turns are the same objects. */
export function applyPartReplacements(
  turns: readonly HistoryTurn[],
  replacements: ReadonlyMap<Part, Part>,
): { turns: HistoryTurn[]; turnsChanged: number; partsReplaced: number } {
  let turnsChanged = 0;
  let partsReplaced = 0;
  const next = turns.map((turn) => {
    const parts = turn.content.parts;
    if (!Array.isArray(parts) || !parts.some((part) => replacements.has(part))) return turn;
    turnsChanged++;
    return {
      id: turn.id,
      content: {
        ...turn.content,
        parts: parts.map((part) => {
          const replacement = replacements.get(part);
          if (!replacement) return part;
          partsReplaced++;
          return replacement;
        }),
      },
    };
  });
  return { turns: next, turnsChanged, partsReplaced };
}

/**
 * Applies `result` (a pass over `before`, which came from `chat.getHistory()`) to the live chat.
 * Entries of `result.newHistory` past `before.length` (a pending request the caller appended)
 * are ignored here.
 */
export function writeBackMaskedHistory(
  chat: WritableChat,
  before: readonly Content[],
  result: Pick<MaskingResult, 'newHistory' | 'changedIndices' | 'maskedCount'>,
): WriteBackResult {
  if (result.maskedCount === 0 || result.changedIndices.length === 0) return NOTHING;
  const { replacements, refused } = collectPartReplacements(before, result);
  if (replacements.size === 0) return { ...NOTHING, refused };
  const live = chat.agentHistory.get();
  const { turns, turnsChanged, partsReplaced } = applyPartReplacements(live, replacements);
  const missed = Math.max(0, replacements.size - partsReplaced);
  if (turnsChanged === 0) return { ...NOTHING, refused, missed };
  chat.agentHistory.set(turns);
  return { written: true, turnsChanged, partsReplaced, refused, missed };
}
