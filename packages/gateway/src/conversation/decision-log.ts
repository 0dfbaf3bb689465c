/**
 * A conversation's decision log: which of its tool outputs were masked (and the snippet sent for
 * each, byte for byte) and which were tried and kept whole. The client resends every output
 * unmasked with every request; the log is what makes the gateway send each one as it did before,
 * across requests and restarts (the records are in the conversation store).
 *
 * The log tells the masking service about what it re-applies (`markMasked`, `markKeptWhole`), so a
 * re-applied snippet or a whole output tried before is neither counted nor masked again.
 */
import type { Content, MaskingResult, Part, ToolOutputMaskingService } from '@toolmask/core';
import type { EventLoopPauser } from '@toolmask/core/utils';
import type { DecisionRecord } from '../state/stores.js';
import { boundedName } from '../server/caller-values.js';
import {
  headOfKey,
  needsPreparedKey,
  outputKey,
  outputKeyHead,
  prepareOutputKey,
} from './output-key.js';

type MaskedRecord = Extract<DecisionRecord, { kind: 'masked' }>;

/** Masked outputs in a request as sent, and the tokens they keep out (estimates). */
export interface MaskedTally {
  maskedOutputs: number;
  tokensKeptOut: number;
}

export class DecisionLog {
  private readonly masked = new Map<string, MaskedRecord>();
  /** Snippet response object → its record (to count what a request carries). */
  private readonly bySnippet = new WeakMap<object, MaskedRecord>();
  private readonly kept = new Set<string>();
  /**
   * The heads (tool name and call id: output-key.ts) of the keys of `masked` and `kept`: an
   * output whose head is not here has no decision, and is not hashed to find out (a new output
   * of a known conversation, on every request).
   */
  private readonly heads = new Set<string>();
  /** Decisions in use not yet found by key (`use`): their keys are taken by `index`. */
  private unindexed: DecisionRecord[] = [];
  /** How many of `unindexed` an `index` under way has found by key already. */
  private indexedCount = 0;

  constructor(private readonly service: ToolOutputMaskingService) {}

  get hasMasked(): boolean {
    return this.masked.size > 0 || this.unindexed.some((record) => record.kind === 'masked');
  }

  /** Where the output of `key` was saved, when it was masked. */
  savedFileOf(key: string): string | undefined {
    this.indexNow();
    return this.masked.get(key)?.filePath;
  }

  /** Adds a decision (loaded from the store, or just saved there). */
  remember(record: DecisionRecord): void {
    this.useSnippet(record);
    this.indexRecord(record);
  }

  /**
   * Adds a decision of the pass just made, for the request that made it: its snippet counted and
   * known as re-applied now; found by key (its output's key taken, a hash of the output's JSON)
   * by `index`, after the request is sent, or by the next look-up by key.
   */
  use(record: DecisionRecord): void {
    this.useSnippet(record);
    this.unindexed.push(record);
  }

  /**
   * The decisions `use` added, found by key from now on (in stretches). Those not reached yet stay
   * in `unindexed` while the loop has its turn: a look-up then (`apply`, `hasMasked`) finds them.
   */
  async index(pause: EventLoopPauser): Promise<void> {
    while (this.indexedCount < this.unindexed.length) {
      this.indexRecord(this.unindexed[this.indexedCount++] as DecisionRecord);
      if (pause.due()) await pause();
    }
    this.unindexed = [];
    this.indexedCount = 0;
  }

  private indexNow(): void {
    if (this.indexedCount === this.unindexed.length) return;
    for (let at = this.indexedCount; at < this.unindexed.length; at++) {
      this.indexRecord(this.unindexed[at] as DecisionRecord);
    }
    this.unindexed = [];
    this.indexedCount = 0;
  }

  private useSnippet(record: DecisionRecord): void {
    if (record.kind !== 'masked') return;
    this.bySnippet.set(record.response, record);
    this.service.markMasked(record.response);
  }

  private indexRecord(record: DecisionRecord): void {
    const { key } = record;
    if (record.kind === 'kept') this.kept.add(key);
    else this.masked.set(key, record);
    // A key of another shape is no output's key (outputKey's always has a head).
    const head = headOfKey(key);
    if (head !== undefined) this.heads.add(head);
  }

  /**
   * Makes ready, in stretches, the keys of the entry's outputs that hold strings of megabytes and
   * may have a decision, so that `apply` finds them at once; undefined (no promise) when there are
   * none.
   */
  prepare(content: Content, pause: EventLoopPauser): Promise<void> | undefined {
    const parts = content?.parts;
    if (!Array.isArray(parts)) return undefined;
    this.indexNow();
    const isGiant = (part: Part) =>
      !!part?.functionResponse &&
      this.heads.has(outputKeyHead(part.functionResponse)) &&
      needsPreparedKey(part.functionResponse);
    if (!parts.some(isGiant)) return undefined;
    const giant = parts.filter(isGiant);
    return (async () => {
      for (const part of giant) await prepareOutputKey(part.functionResponse ?? {}, pause);
    })();
  }

  /**
   * An entry with the recorded decisions applied: the same object when none applies.
   * `outputsAfter`: how many tool outputs the request holds after this entry's; a masked output is
   * applied only where at least as many follow it as when it was masked (`outputsAfter` of its
   * record), so a request of another session that shares the key is never sent an output masked
   * that is newer in it.
   */
  apply(content: Content, outputsAfter: number): Content {
    const parts = content?.parts;
    this.indexNow();
    // Nothing decided yet (a conversation's first request, or one the gateway has never seen):
    // no key to look up, so no output is hashed here; the pass's records hash only theirs.
    if (!Array.isArray(parts) || (this.masked.size === 0 && this.kept.size === 0)) return content;
    let replaced: Part[] | undefined;
    let after = outputsAfter + outputsIn(content);
    parts.forEach((part, index) => {
      const functionResponse = part?.functionResponse;
      if (!functionResponse) return;
      after--;
      if (!this.heads.has(outputKeyHead(functionResponse))) return;
      const key = outputKey(functionResponse);
      const record = this.masked.get(key);
      if (record && (record.outputsAfter ?? 0) <= after) {
        replaced ??= parts.slice();
        replaced[index] = {
          ...part,
          functionResponse: { ...functionResponse, response: record.response },
        };
      } else if (this.kept.has(key) && functionResponse.response) {
        this.service.markKeptWhole(functionResponse.response);
      }
    });
    return replaced ? { ...content, parts: replaced } : content;
  }

  /** How many masked outputs `content` carries, and the tokens they keep out. */
  tallyOf(content: Content): MaskedTally {
    let maskedOutputs = 0;
    let tokensKeptOut = 0;
    for (const part of content?.parts ?? []) {
      const response = part?.functionResponse?.response;
      const record = response ? this.bySnippet.get(response) : undefined;
      if (!record) continue;
      maskedOutputs++;
      tokensKeptOut += Math.max(0, record.tokensBefore - record.tokensAfter);
    }
    return { maskedOutputs, tokensKeptOut };
  }

  /** How many masked outputs `sent` carries, and the tokens they keep out (in stretches). */
  async tally(sent: readonly Content[], pause: EventLoopPauser): Promise<MaskedTally> {
    let maskedOutputs = 0;
    let tokensKeptOut = 0;
    // The clock is read every so many parts (a look at it costs more than a part).
    let parts = 0;
    for (const content of sent) {
      parts += content?.parts?.length ?? 0;
      if (parts >= 512) {
        parts = 0;
        if (pause.due()) await pause();
      }
      const counted = this.tallyOf(content);
      maskedOutputs += counted.maskedOutputs;
      tokensKeptOut += counted.tokensKeptOut;
    }
    return { maskedOutputs, tokensKeptOut };
  }
}

/**
 * The decisions a pass made on `before` (masked parts in `after`, outputs kept whole), as records
 * made at `at` (in stretches: a pass may try 100,000 outputs). Each record's `key` is taken when
 * first read (`keyOf`): a store only this gateway writes reads it after the request is sent.
 */
export async function decisionsOfPass(
  pass: {
    before: readonly Content[];
    after: readonly Content[];
    /** What of the pass's result its decisions come from. */
    result: Pick<MaskingResult, 'changedIndices' | 'keptWhole' | 'offloaded'>;
  },
  at: number,
  pause: EventLoopPauser,
): Promise<DecisionRecord[]> {
  const { before, after, result } = pass;
  const records: DecisionRecord[] = [];
  // Most passes of a known conversation decide nothing: no walk over its history then.
  if (result.changedIndices.length === 0 && result.keptWhole.length === 0) return records;
  const outputsAfter = await outputsAfterEach(before, pause);
  // The service lists offloaded outputs in history order, as the changed parts are found here.
  let offloadedIndex = 0;
  for (const contentIndex of result.changedIndices) {
    if (pause.due()) await pause();
    const oldParts = before[contentIndex]?.parts ?? [];
    const newParts = after[contentIndex]?.parts ?? [];
    let outputsLater = (outputsAfter[contentIndex] ?? 0) + outputsIn(before[contentIndex]);
    oldParts.forEach((oldPart, partIndex) => {
      const newPart = newParts[partIndex];
      const original = oldPart?.functionResponse;
      if (original) outputsLater--;
      const replacement = newPart?.functionResponse?.response as { output?: unknown } | undefined;
      if (!original || newPart === oldPart || typeof replacement?.output !== 'string') return;
      const offloaded = result.offloaded[offloadedIndex++];
      if (!offloaded) return;
      const key = keyOf(original);
      records.push({
        kind: 'masked',
        get key() {
          return key();
        },
        toolName: boundedName(offloaded.toolName),
        callId: boundedName(offloaded.callId),
        response: replacement as { output: string },
        filePath: offloaded.filePath,
        bytes: offloaded.bytes,
        tokensBefore: offloaded.tokensBefore,
        tokensAfter: offloaded.tokensAfter,
        outputsAfter: outputsLater,
        at,
      });
    });
  }
  for (const location of result.keptWhole) {
    if (pause.due()) await pause();
    const functionResponse =
      before[location.contentIndex]?.parts?.[location.partIndex]?.functionResponse;
    if (!functionResponse) continue;
    const key = keyOf(functionResponse);
    records.push({
      kind: 'kept',
      get key() {
        return key();
      },
      toolName: boundedName(typeof functionResponse.name === 'string' ? functionResponse.name : ''),
      callId: boundedName(typeof functionResponse.id === 'string' ? functionResponse.id : ''),
      at,
    });
  }
  return records;
}

/** The output's key, taken when first asked for (a hash of its JSON: off the request path). */
function keyOf(functionResponse: Parameters<typeof outputKey>[0]): () => string {
  // The output is let go once its key is taken (it may be a masked output's whole text).
  let output: typeof functionResponse | undefined = functionResponse;
  let key: string | undefined;
  return () => {
    if (key === undefined) {
      key = outputKey(output as typeof functionResponse);
      output = undefined;
    }
    return key;
  };
}

/** How many tool outputs (function responses) an entry holds. */
export function outputsIn(content: Content | undefined): number {
  const parts = content?.parts;
  if (!Array.isArray(parts)) return 0;
  let count = 0;
  for (const part of parts) if (part?.functionResponse) count++;
  return count;
}

/**
 * For each entry, how many tool outputs the entries after it hold (in stretches: a history may
 * hold 150,000 entries).
 */
export async function outputsAfterEach(
  contents: readonly Content[],
  pause: EventLoopPauser,
): Promise<number[]> {
  const counts = new Array<number>(contents.length);
  let later = 0;
  for (let index = contents.length - 1; index >= 0; index--) {
    if (index % 512 === 0 && pause.due()) await pause();
    counts[index] = later;
    later += outputsIn(contents[index]);
  }
  return counts;
}
