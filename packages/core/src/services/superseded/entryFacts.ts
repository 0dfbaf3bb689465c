/**
 * What one entry of a history holds that the superseded outputs depend on: its calls, each with
 * what it reads and writes (toolCalls/callFacts.ts), and its outputs, each with how it went
 * (outputStatus.ts), by part index, id and name. Read once per object: an entry's facts per entry
 * identity, a call's facts per call object (WeakMaps, so nothing outlives the history it
 * describes); an output's status, a few bounded scans of its head and tail, is read with its entry
 * (a cache per response object cost more than the scans, issue 30). A part that throws when read
 * holds nothing, an entry whose parts cannot be read holds nothing; reading never throws.
 */
import type { Content, Part } from '../maskingTypes.js';
import { callFacts } from '../toolCalls/callFacts.js';
import { ALL_FACTS, type CallFacts, type WantedFacts } from '../toolCalls/fileRanges.js';
import { outputStatus, type OutputStatus } from './outputStatus.js';

/** A call of an entry, with its facts. */
export interface EntryCall {
  partIndex: number;
  id: string | undefined;
  name: string;
  facts: CallFacts;
}

/** An output of an entry. */
export interface EntryOutput {
  partIndex: number;
  id: string | undefined;
  name: string;
  status: OutputStatus;
}

/** What one entry holds that matters here. */
export interface EntryFacts {
  calls: readonly EntryCall[];
  outputs: readonly EntryOutput[];
}

const NO_ENTRY: EntryFacts = { calls: [], outputs: [] };

/** Do two entries hold the same calls and outputs (a pass replaced one by the other)? */
export function sameEntry(a: EntryFacts, b: EntryFacts): boolean {
  if (a.calls.length !== b.calls.length || a.outputs.length !== b.outputs.length) return false;
  for (let index = 0; index < a.calls.length; index++) {
    const left = a.calls[index] as EntryCall;
    const right = b.calls[index] as EntryCall;
    if (
      left.partIndex !== right.partIndex ||
      left.id !== right.id ||
      left.name !== right.name ||
      left.facts.rerunKey !== right.facts.rerunKey
    ) {
      return false;
    }
  }
  for (let index = 0; index < a.outputs.length; index++) {
    const left = a.outputs[index] as EntryOutput;
    const right = b.outputs[index] as EntryOutput;
    if (left.partIndex !== right.partIndex || left.id !== right.id || left.name !== right.name) {
      return false;
    }
  }
  return true;
}

/** Reads entries' facts, each object once (see the module comment). */
export class EntryReader {
  private readonly callFactsCache = new WeakMap<object, CallFacts>();
  private readonly entryCache = new WeakMap<object, EntryFacts>();
  private calls = 0;

  /** `wanted`: the facts of calls the reader's user looks at (the others are left empty). */
  constructor(private readonly wanted: WantedFacts = ALL_FACTS) {}

  /** How many calls had their facts computed: each call once (for tests). */
  get parsedCalls(): number {
    return this.calls;
  }

  /** An entry's calls and outputs (cached per entry identity). Unreadable parts count as none. */
  entryFacts(content: Content | undefined, identity: unknown): EntryFacts {
    const cacheable = identity !== null && typeof identity === 'object';
    const cached = cacheable ? this.entryCache.get(identity) : undefined;
    if (cached) return cached;
    let facts = NO_ENTRY;
    try {
      const parts: unknown = content?.parts;
      if (Array.isArray(parts)) facts = this.readParts(parts as Part[]);
    } catch {
      facts = NO_ENTRY;
    }
    if (cacheable) this.entryCache.set(identity, facts);
    return facts;
  }

  private readParts(parts: readonly Part[]): EntryFacts {
    let calls: EntryCall[] | undefined;
    let outputs: EntryOutput[] | undefined;
    for (let partIndex = 0; partIndex < parts.length; partIndex++) {
      try {
        const part = parts[partIndex];
        const call = part?.functionCall;
        if (call && typeof call === 'object') {
          const name = typeof call.name === 'string' ? call.name : '';
          const id = typeof call.id === 'string' ? call.id : undefined;
          const facts = this.callFactsOf(call, name);
          (calls ??= []).push({ partIndex, id, name, facts });
        }
        const response = part?.functionResponse;
        if (response && typeof response === 'object') {
          const name = typeof response.name === 'string' ? response.name : '';
          const id = typeof response.id === 'string' ? response.id : undefined;
          const status = outputStatus(response.response);
          (outputs ??= []).push({ partIndex, id, name, status });
        }
      } catch {
        // A part that throws when read (a getter, a revoked proxy) holds nothing here.
      }
    }
    return calls || outputs ? { calls: calls ?? [], outputs: outputs ?? [] } : NO_ENTRY;
  }

  private callFactsOf(call: object, name: string): CallFacts {
    let facts = this.callFactsCache.get(call);
    if (!facts) {
      this.calls++;
      facts = callFacts(name, (call as { args?: unknown }).args, this.wanted);
      this.callFactsCache.set(call, facts);
    }
    return facts;
  }
}
