/**
 * Tool outputs the session has since replaced, pure: for each output of a history, whether a
 * LATER call supersedes it, by which call and why. Hiding such an output costs the model nothing:
 * what it showed is in the context again, or no longer true.
 *
 * - `rerun`: the same tool ran again with the same arguments (canonical JSON, a shell command's
 *   text and directory; a call's `description` does not count).
 * - `read-again`: the output showed lines of files only (`cat f`, `sed -n '10,80p' f`,
 *   `read_file`), and a later call's output shows at least those lines again: a whole-file read
 *   covers any read of that file, a range read a range within it, a search or a tail only a
 *   whole read.
 * - `edited`: the output showed lines of files only, and each of them was written or edited later.
 *
 * What a call reads and writes comes from its name and arguments as each host writes them
 * (toolCalls/callFacts.ts). A later call counts only once its output is in the history (the replacement
 * must be visible), and only if that output shows it worked: a read again that failed, or was cut
 * short by the host ("too long", "truncated"), covers nothing; an edit that failed edits nothing.
 * The first call that supersedes an output is the one named; it never changes afterwards.
 *
 * Cost: a pass costs what is new. Each call's facts are computed once per call object, each
 * output's status once per response object, each entry's summary once per entry (WeakMaps). The
 * tracker keeps its state between passes and goes on from the first entry it has not seen; an
 * entry replaced by one with the same calls and outputs (a pass masked it) changes nothing, so
 * only a history that really changed before its end is read again from the start.
 */
import type { EventLoopPauser } from '../utils/eventLoop.js';
import { callFacts } from './toolCalls/callFacts.js';
import type { CallFacts, FileRange } from './toolCalls/fileRanges.js';
import type { Content, Part } from './maskingTypes.js';

export type SupersededReason = 'rerun' | 'read-again' | 'edited';

export const SUPERSEDED_REASONS: readonly SupersededReason[] = ['rerun', 'read-again', 'edited'];

/**
 * The reasons the pass uses unless told otherwise. Not `edited`: an edit changes some lines of a
 * file, and agents go on quoting the others from the read before it (on the shared traces it hid
 * ~570 more lines quoted later at idle gaps, for 1.4–2.1 points of billed input:
 * docs/benchmarks.md, 3.9); `rerun` and `read-again` hide lines that a newer output shows.
 */
export const DEFAULT_SUPERSEDED_REASONS: readonly SupersededReason[] = ['rerun', 'read-again'];

/** What superseded an output: the reason, and the later call (its entry, its output's, its id). */
export interface Supersession {
  reason: SupersededReason;
  callContentIndex: number;
  outputContentIndex: number;
  callId?: string;
}

/** The superseded outputs of a history, by position. */
export interface SupersededView {
  /** Indices of the entries that hold superseded outputs, ascending. */
  readonly entries: readonly number[];
  /** The superseded outputs of one entry, by part index. */
  partsOf(contentIndex: number): ReadonlyMap<number, Supersession> | undefined;
}

export interface SupersededOptions {
  /** The reasons that count. @default all three */
  reasons?: readonly SupersededReason[];
}

/** How a later output went: it failed, or the host cut it short. */
export interface OutputStatus {
  failed: boolean;
  truncated: boolean;
}

/** How far into an output its status markers are looked for. */
const STATUS_HEAD_CHARS = 400;
const EXIT_CODE_TAIL_CHARS = 1_024;
/** What the hosts write at the head of an output they cut short. */
const TRUNCATION_MARKERS = [
  'was too long',
  'has been truncated',
  'too large to display',
  'Output too large',
  '(truncated',
  'truncated]',
  'characters elided',
  '<output_head>',
];
/** How the first line of a failed read or edit starts (after a shell result's `Output: `). */
const FAILURE_STARTS = [
  'Error',
  'error',
  'ERROR',
  'Failed',
  'failed',
  'usage:',
  'Usage:',
  'Cannot',
];
/** What the first line of a failed read or edit says anywhere, in the hosts' words. */
const FAILURE_MARKERS = [
  'No such file or directory',
  ': Is a directory',
  'Permission denied',
  'File not found',
  'does not exist',
  'No replacement was performed',
  'did not appear verbatim',
  'already exists',
  'tool_use_error',
];

/**
 * The status of a tool's response: failed (an `error` field, a first line that says so, a shell
 * result's non-zero `Exit Code`) or cut short by the host (a marker in its head). Bounded: only
 * the first `STATUS_HEAD_CHARS` and the last `EXIT_CODE_TAIL_CHARS` characters are looked at.
 */
export function outputStatus(response: unknown): OutputStatus {
  if (response === null || typeof response !== 'object' || Array.isArray(response)) {
    return { failed: true, truncated: false };
  }
  const fields = response as Record<string, unknown>;
  if (fields['error'] !== undefined) return { failed: true, truncated: false };
  const text = typeof fields['output'] === 'string' ? fields['output'] : undefined;
  if (text === undefined) return { failed: false, truncated: false };
  const head = text.slice(0, STATUS_HEAD_CHARS);
  const lineEnd = head.indexOf('\n');
  const firstLine = (lineEnd < 0 ? head : head.slice(0, lineEnd)).replace(/^Output: ?/, '');
  const truncated = TRUNCATION_MARKERS.some((marker) => head.includes(marker));
  let failed =
    FAILURE_STARTS.some((start) => firstLine.startsWith(start)) ||
    FAILURE_MARKERS.some((marker) => firstLine.includes(marker));
  // gemini-cli's and qwen's shell sections: `Exit Code: N` near the end, N not 0.
  const marker = '\nExit Code: ';
  const tail = text.slice(-EXIT_CODE_TAIL_CHARS);
  const exitAt = tail.lastIndexOf(marker);
  if (exitAt >= 0) {
    const code = tail.slice(exitAt + marker.length, exitAt + marker.length + 1);
    if (code >= '1' && code <= '9') failed = true;
  }
  return { failed, truncated };
}

/** A call of an entry, with its facts. */
interface EntryCall {
  partIndex: number;
  id?: string;
  name: string;
  facts: CallFacts;
}

/** An output of an entry. */
interface EntryOutput {
  partIndex: number;
  id?: string;
  name: string;
  status: OutputStatus;
}

/** What one entry holds that matters here. */
interface EntryFacts {
  calls: readonly EntryCall[];
  outputs: readonly EntryOutput[];
}

const NO_ENTRY: EntryFacts = { calls: [], outputs: [] };

/** A call whose output has not been seen yet. */
interface PendingCall {
  contentIndex: number;
  id?: string;
  facts: CallFacts;
}

/** An output that may still be superseded. */
interface OpenOutput {
  contentIndex: number;
  partIndex: number;
  /** Reads of its output not yet shown again or edited. */
  readsLeft: number;
  superseded?: Supersession;
}

interface OpenRead {
  output: OpenOutput;
  range: FileRange;
  done: boolean;
}

/** Where an entry's identity lies between passes: its `parts` array (see historyLedger.ts). */
function identityOf(content: Content | undefined): unknown {
  if (content === null || typeof content !== 'object') return content;
  const parts = content.parts;
  return Array.isArray(parts) ? parts : content;
}

function sameEntry(a: EntryFacts, b: EntryFacts): boolean {
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

/** Does `later` show every line `earlier` showed? */
function covers(later: FileRange, earlier: FileRange): boolean {
  if (later.partial) return false;
  if (earlier.partial) return later.first === 1 && later.last === Infinity;
  return later.first <= earlier.first && earlier.last <= later.last;
}

/** Stands for an entry the tracker let go of (`release`): equal to no entry's identity. */
const RELEASED = Symbol('released');

/** Entries looked at between two looks at the clock. */
const ENTRIES_PER_LOOK = 16;

/**
 * The superseded outputs of a history, kept between passes (see the module comment). One tracker
 * follows one history; a different history starts it over.
 */
export class SupersededOutputs implements SupersededView {
  private readonly reasons: ReadonlySet<SupersededReason>;
  private readonly callFactsCache = new WeakMap<object, CallFacts>();
  private readonly statusCache = new WeakMap<object, OutputStatus>();
  private readonly entryCache = new WeakMap<object, EntryFacts>();
  private identities: unknown[] = [];
  private facts: EntryFacts[] = [];
  private pendingById = new Map<string, PendingCall>();
  private pendingByName = new Map<string, PendingCall[]>();
  /** Calls whose output was seen, by id: a second copy of that output is another output of it. */
  private settledById = new Map<string, PendingCall>();
  private openByKey = new Map<string, OpenOutput[]>();
  private openReads = new Map<string, OpenRead[]>();
  private byEntry = new Map<number, Map<number, Supersession>>();
  private sortedEntries: number[] = [];
  private calls = 0;
  private followed = 0;

  constructor(options: SupersededOptions = {}) {
    this.reasons = new Set(options.reasons ?? SUPERSEDED_REASONS);
  }

  get entries(): readonly number[] {
    return this.sortedEntries;
  }

  partsOf(contentIndex: number): ReadonlyMap<number, Supersession> | undefined {
    return this.byEntry.get(contentIndex);
  }

  /** How many calls had their facts computed: each call once (for tests). */
  get parsedCalls(): number {
    return this.calls;
  }

  /** Entries followed over all updates: only what is new, unless it started over (for tests). */
  get followedEntries(): number {
    return this.followed;
  }

  /** Brings the tracker in line with `history`. */
  update(history: readonly Content[]): void {
    const steps = this.updating(history);
    while (!steps.next().done) {
      // Runs to the end at once.
    }
  }

  /** `update`, giving the event loop a turn whenever `pause` says the stretch has run its time. */
  async updateInSlices(history: readonly Content[], pause: EventLoopPauser): Promise<void> {
    const steps = this.updating(history);
    while (!steps.next().done) {
      if (pause.due()) await pause();
    }
  }

  /**
   * Lets go of the entries at `indices` (a pass replaced them): the tracker keeps what it found in
   * them, not the entries themselves, so a replaced output's text is not held here. The next
   * update compares the entries it finds there by their calls and outputs.
   */
  release(indices: readonly number[]): void {
    for (const index of indices) {
      if (index < this.identities.length) this.identities[index] = RELEASED;
    }
  }

  /** Forgets everything (a host that lets go of its history, or a failed update). */
  reset(): void {
    this.identities = [];
    this.facts = [];
    this.pendingById = new Map();
    this.pendingByName = new Map();
    this.settledById = new Map();
    this.openByKey = new Map();
    this.openReads = new Map();
    this.byEntry = new Map();
    this.sortedEntries = [];
  }

  private *updating(history: readonly Content[]): Generator<void, void> {
    // The entries seen before, unchanged or replaced by the same calls and outputs.
    let same = 0;
    const limit = Math.min(this.identities.length, history.length);
    while (same < limit) {
      if (same % 1024 === 1023) yield;
      const content = history[same];
      const identity = identityOf(content);
      if (identity !== this.identities[same]) {
        if (!sameEntry(this.entryFacts(content, identity), this.facts[same] as EntryFacts)) break;
        this.identities[same] = identity;
      }
      same++;
    }
    if (same < this.identities.length) {
      // Something before the end changed (or the history shrank): read it again from the start.
      this.reset();
      same = 0;
    }
    for (let index = same; index < history.length; index++) {
      if (index % ENTRIES_PER_LOOK === ENTRIES_PER_LOOK - 1) yield;
      const content = history[index];
      const identity = identityOf(content);
      const facts = this.entryFacts(content, identity);
      this.identities.push(identity);
      this.facts.push(facts);
      this.follow(index, facts);
    }
  }

  /** An entry's calls and outputs (cached per entry identity). Unreadable parts count as none. */
  private entryFacts(content: Content | undefined, identity: unknown): EntryFacts {
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
          (calls ??= []).push({
            partIndex,
            name,
            ...(id !== undefined ? { id } : {}),
            facts: this.callFactsOf(call, name),
          });
        }
        const response = part?.functionResponse;
        if (response && typeof response === 'object') {
          const name = typeof response.name === 'string' ? response.name : '';
          const id = typeof response.id === 'string' ? response.id : undefined;
          (outputs ??= []).push({
            partIndex,
            name,
            ...(id !== undefined ? { id } : {}),
            status: this.statusOf(response.response),
          });
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
      facts = callFacts(name, (call as { args?: unknown }).args);
      this.callFactsCache.set(call, facts);
    }
    return facts;
  }

  private statusOf(response: unknown): OutputStatus {
    if (response === null || typeof response !== 'object') return outputStatus(response);
    let status = this.statusCache.get(response);
    if (!status) {
      status = outputStatus(response);
      this.statusCache.set(response, status);
    }
    return status;
  }

  /** One entry, in order: its calls wait for their outputs; each output settles its call. */
  private follow(contentIndex: number, facts: EntryFacts): void {
    this.followed++;
    for (const call of facts.calls) {
      const pending: PendingCall = {
        contentIndex,
        facts: call.facts,
        ...(call.id !== undefined ? { id: call.id } : {}),
      };
      if (call.id !== undefined) {
        this.pendingById.set(call.id, pending);
      } else {
        const queue = this.pendingByName.get(call.name) ?? [];
        queue.push(pending);
        this.pendingByName.set(call.name, queue);
      }
    }
    for (const output of facts.outputs) {
      let call: PendingCall | undefined;
      if (output.id !== undefined) {
        call = this.pendingById.get(output.id);
        if (call) {
          this.pendingById.delete(output.id);
        } else {
          // A second copy of an output already seen (gemini-cli's resumed histories have them):
          // another output of the same call, superseded with the first.
          const settled = this.settledById.get(output.id);
          if (settled) this.open(settled.facts, output, contentIndex);
          if (settled) continue;
        }
      }
      call ??= this.pendingByName.get(output.name)?.shift();
      if (!call) continue;
      if (call.id !== undefined) this.settledById.set(call.id, call);
      this.settle(call, output, contentIndex);
    }
  }

  /** A call's output is in the history: it supersedes what it replaces, then may be superseded. */
  private settle(call: PendingCall, output: EntryOutput, contentIndex: number): void {
    const { facts } = call;
    const by: Omit<Supersession, 'reason'> = {
      callContentIndex: call.contentIndex,
      outputContentIndex: contentIndex,
      ...(call.id !== undefined ? { callId: call.id } : {}),
    };
    if (this.reasons.has('rerun') && facts.rerunKey !== '') {
      const earlier = this.openByKey.get(facts.rerunKey);
      if (earlier) for (const open of earlier) this.supersede(open, 'rerun', by);
      this.openByKey.delete(facts.rerunKey);
    }
    if (this.reasons.has('edited') && !output.status.failed) {
      for (const file of facts.writes) {
        const reads = this.openReads.get(file);
        if (!reads) continue;
        this.openReads.delete(file);
        for (const read of reads) this.settleRead(read, 'edited', by);
      }
    }
    const shows = !output.status.failed && !output.status.truncated;
    if (this.reasons.has('read-again') && shows && facts.reads.length > 0) {
      for (const file of new Set(facts.reads.map((range) => range.path))) {
        const reads = this.openReads.get(file);
        if (!reads) continue;
        const later = facts.reads.filter((range) => range.path === file);
        for (const read of reads) {
          if (later.some((range) => covers(range, read.range))) {
            this.settleRead(read, 'read-again', by);
          }
        }
        const open = reads.filter((read) => !read.done && !read.output.superseded);
        if (open.length > 0) this.openReads.set(file, open);
        else this.openReads.delete(file);
      }
    }
    this.open(facts, output, contentIndex);
  }

  /** Registers an output that later calls may supersede. */
  private open(facts: CallFacts, output: EntryOutput, contentIndex: number): void {
    const self: OpenOutput = { contentIndex, partIndex: output.partIndex, readsLeft: 0 };
    if (this.reasons.has('rerun') && facts.rerunKey !== '') {
      const outputs = this.openByKey.get(facts.rerunKey);
      if (outputs) outputs.push(self);
      else this.openByKey.set(facts.rerunKey, [self]);
    }
    if (facts.reads.length > 0 && !output.status.failed) {
      self.readsLeft = facts.reads.length;
      for (const range of facts.reads) {
        const reads = this.openReads.get(range.path) ?? [];
        reads.push({ output: self, range, done: false });
        this.openReads.set(range.path, reads);
      }
    }
  }

  private settleRead(read: OpenRead, reason: SupersededReason, by: Omit<Supersession, 'reason'>) {
    if (read.done) return;
    read.done = true;
    if (--read.output.readsLeft === 0) this.supersede(read.output, reason, by);
  }

  private supersede(
    output: OpenOutput,
    reason: SupersededReason,
    by: Omit<Supersession, 'reason'>,
  ) {
    if (output.superseded) return;
    const supersession: Supersession = { reason, ...by };
    output.superseded = supersession;
    let parts = this.byEntry.get(output.contentIndex);
    if (!parts) {
      parts = new Map();
      this.byEntry.set(output.contentIndex, parts);
      insertSorted(this.sortedEntries, output.contentIndex);
    }
    parts.set(output.partIndex, supersession);
  }
}

/** Index of the first element of ascending `values` at or above `value`. */
export function lowerBound(values: readonly number[], value: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((values[middle] as number) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

function insertSorted(values: number[], value: number): void {
  const at = lowerBound(values, value);
  if (values[at] !== value) values.splice(at, 0, value);
}

/** The superseded outputs of `history`, once (no memory between calls): tests, one-off uses. */
export function findSupersededOutputs(
  history: readonly Content[],
  options: SupersededOptions = {},
): SupersededView {
  const tracker = new SupersededOutputs(options);
  tracker.update(history);
  return tracker;
}

/** The line a snippet gives a superseded output: why it was hidden, and where the rest is. */
export function supersededNote(supersession: Pick<Supersession, 'reason' | 'callId'>): string {
  const id = supersession.callId?.replace(/[^A-Za-z0-9_.:-]/g, '').slice(0, 64);
  const call = id ? ` (call ${id})` : '';
  switch (supersession.reason) {
    case 'read-again':
      return `Superseded: this file was read again later${call}.`;
    case 'edited':
      return `Superseded: this file was edited later${call}.`;
    case 'rerun':
      return `Superseded: the same command ran again later${call}.`;
  }
}
