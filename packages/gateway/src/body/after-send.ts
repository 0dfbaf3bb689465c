/**
 * A reader's work left for after the send (incremental-body.ts): what only its next read needs,
 * started once by whoever comes first (the pipeline after the send, else that next read), then
 * the client's versions of the elements its write replaced measured, so that their cells let go
 * of them. None of it decides a byte of the body sent.
 */
import { eventLoopPauser, type EventLoopPauser } from '@toolmask/core/utils';
import type { SegmentCell } from './prompt-segments.js';

export class AfterSend {
  private unsettled?: () => Promise<void>;
  private replacedCells: SegmentCell[] = [];

  /** Whether work is left. */
  get pending(): boolean {
    return this.unsettled !== undefined;
  }

  /** `work` for after the send (in place of any left before), the replaced cells measured after it. */
  leave(work: (pause: EventLoopPauser) => Promise<void>): void {
    this.unsettled = once(async () => {
      const pause = eventLoopPauser();
      await work(pause);
      await this.measureReplaced(pause);
    });
  }

  /** A cell of the client's version of an element a write replaced: measured after the send. */
  replaced(cell: SegmentCell): void {
    this.replacedCells.push(cell);
  }

  /** The work left, done (at once when there is none). */
  async settle(): Promise<void> {
    const unsettled = this.unsettled;
    if (!unsettled) return;
    await unsettled();
    if (this.unsettled === unsettled) this.unsettled = undefined;
  }

  /** Drops what is left (the reader forgets everything). */
  drop(): void {
    this.unsettled = undefined;
    this.replacedCells = [];
  }

  /** The replaced cells measured (they let go of what they measured). */
  private async measureReplaced(pause: EventLoopPauser): Promise<void> {
    const cells = this.replacedCells;
    this.replacedCells = [];
    for (const cell of cells) {
      cell.measure();
      if (pause.due()) await pause();
    }
  }
}

/** `run` started on the first call only; every call gets its promise. */
function once(run: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= run());
}
