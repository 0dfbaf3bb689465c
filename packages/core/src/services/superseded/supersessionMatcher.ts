/**
 * Who supersedes whom, entry by entry in history order: a call waits for its output (by id, else
 * by tool name in call order); once the output is in the history, the call supersedes the open
 * outputs it replaces (the same rerun key; every open read of a file it writes, when it worked;
 * every open read its own reads cover, when its output shows them whole), and its own output
 * opens in turn. An output whose reads span several files is superseded once each of them is. The
 * first call that supersedes an output is the one named; it never changes. A second copy of an
 * output already seen (gemini-cli's resumed histories) is another output of the same call.
 */
import { insertSorted } from '../../utils/sortedNumbers.js';
import type { CallFacts, FileRange } from '../toolCalls/fileRanges.js';
import type { EntryFacts, EntryOutput } from './entryFacts.js';
import type { SupersededReason, SupersededView, Supersession } from './supersession.js';

/** A call whose output has not been seen yet. */
interface PendingCall {
  contentIndex: number;
  id: string | undefined;
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

/** Does `later` show every line `earlier` showed? */
function covers(later: FileRange, earlier: FileRange): boolean {
  if (later.partial) return false;
  if (earlier.partial) return later.first === 1 && later.last === Infinity;
  return later.first <= earlier.first && earlier.last <= later.last;
}

/** The supersessions found so far, and the calls and outputs that may still make more. */
export class SupersessionMatcher implements SupersededView {
  private readonly pendingById = new Map<string, PendingCall>();
  private readonly pendingByName = new Map<string, PendingCall[]>();
  /** Calls whose output was seen, by id: a second copy of that output is another output of it. */
  private readonly settledById = new Map<string, PendingCall>();
  private readonly openByKey = new Map<string, OpenOutput[]>();
  private readonly openReads = new Map<string, OpenRead[]>();
  private readonly byEntry = new Map<number, Map<number, Supersession>>();
  private readonly sortedEntries: number[] = [];
  private readonly rerun: boolean;
  private readonly readAgain: boolean;
  private readonly edited: boolean;

  constructor(reasons: ReadonlySet<SupersededReason>) {
    this.rerun = reasons.has('rerun');
    this.readAgain = reasons.has('read-again');
    this.edited = reasons.has('edited');
  }

  get entries(): readonly number[] {
    return this.sortedEntries;
  }

  partsOf(contentIndex: number): ReadonlyMap<number, Supersession> | undefined {
    return this.byEntry.get(contentIndex);
  }

  /** One entry, in order: its calls wait for their outputs; each output settles its call. */
  follow(contentIndex: number, facts: EntryFacts): void {
    for (const call of facts.calls) {
      const pending: PendingCall = { contentIndex, id: call.id, facts: call.facts };
      if (call.id !== undefined) {
        this.pendingById.set(call.id, pending);
      } else {
        const queue = this.pendingByName.get(call.name);
        if (queue) queue.push(pending);
        else this.pendingByName.set(call.name, [pending]);
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
          if (settled) {
            this.open(settled.facts, output, contentIndex);
            continue;
          }
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
    const by: By = { call, contentIndex };
    if (this.rerun && facts.rerunKey !== '') {
      const earlier = this.openByKey.get(facts.rerunKey);
      if (earlier) {
        for (const open of earlier) this.supersede(open, 'rerun', by);
        this.openByKey.delete(facts.rerunKey);
      }
    }
    if (this.edited && facts.writes.length > 0 && !output.status.failed) {
      for (const file of facts.writes) {
        const reads = this.openReads.get(file);
        if (!reads) continue;
        this.openReads.delete(file);
        for (const read of reads) this.settleRead(read, 'edited', by);
      }
    }
    if (this.readAgain && facts.reads.length > 0) {
      const { status } = output;
      if (!status.failed && !status.truncated) this.readAgainBy(facts.reads, by);
    }
    this.open(facts, output, contentIndex);
  }

  /** `reads` (a later call's, shown whole) settle the open reads they cover, file by file. */
  private readAgainBy(reads: readonly FileRange[], by: By): void {
    for (let index = 0; index < reads.length; index++) {
      const file = (reads[index] as FileRange).path;
      if (firstOf(reads, file) !== index) continue;
      const open = this.openReads.get(file);
      if (!open) continue;
      let left = 0;
      for (const read of open) {
        if (coveredBy(reads, index, read.range)) this.settleRead(read, 'read-again', by);
        if (!read.done && !read.output.superseded) open[left++] = read;
      }
      if (left > 0) open.length = left;
      else this.openReads.delete(file);
    }
  }

  /** Registers an output that later calls may supersede. */
  private open(facts: CallFacts, output: EntryOutput, contentIndex: number): void {
    const self: OpenOutput = { contentIndex, partIndex: output.partIndex, readsLeft: 0 };
    if (this.rerun && facts.rerunKey !== '') {
      const outputs = this.openByKey.get(facts.rerunKey);
      if (outputs) outputs.push(self);
      else this.openByKey.set(facts.rerunKey, [self]);
    }
    if (facts.reads.length > 0 && !output.status.failed) {
      self.readsLeft = facts.reads.length;
      for (const range of facts.reads) {
        const read: OpenRead = { output: self, range, done: false };
        const reads = this.openReads.get(range.path);
        if (reads) reads.push(read);
        else this.openReads.set(range.path, [read]);
      }
    }
  }

  private settleRead(read: OpenRead, reason: SupersededReason, by: By) {
    if (read.done) return;
    read.done = true;
    if (--read.output.readsLeft === 0) this.supersede(read.output, reason, by);
  }

  private supersede(output: OpenOutput, reason: SupersededReason, by: By) {
    if (output.superseded) return;
    const { call } = by;
    const supersession: Supersession =
      call.id !== undefined
        ? {
            reason,
            callContentIndex: call.contentIndex,
            outputContentIndex: by.contentIndex,
            callId: call.id,
          }
        : { reason, callContentIndex: call.contentIndex, outputContentIndex: by.contentIndex };
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

/** The later call and the entry of its output: what a supersession names. */
interface By {
  call: PendingCall;
  contentIndex: number;
}

/** The index of the first range of `reads` on `file`. */
function firstOf(reads: readonly FileRange[], file: string): number {
  let index = 0;
  while ((reads[index] as FileRange).path !== file) index++;
  return index;
}

/** Does a range of `reads` on the same file as `reads[from]` (from there on) cover `earlier`? */
function coveredBy(reads: readonly FileRange[], from: number, earlier: FileRange): boolean {
  const file = (reads[from] as FileRange).path;
  for (let index = from; index < reads.length; index++) {
    const later = reads[index] as FileRange;
    if (later.path === file && covers(later, earlier)) return true;
  }
  return false;
}
