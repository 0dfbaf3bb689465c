/**
 * What a reader of an agent's own session file gives back: one history or more (a compaction
 * starts a new one), the provider whose cache rules price it, when the session ran, and
 * warnings for the person.
 */
import type { PricingName } from '../replay/pricing.js';
import type { BuiltHistory } from './history-builder.js';

export interface AgentSessionRead {
  histories: BuiltHistory[];
  /** Whose prompt cache the session ran against (the default `--pricing`). */
  provider: PricingName;
  /** Milliseconds since the epoch of the first and last record with a time. */
  startedAt?: number;
  updatedAt?: number;
  warnings: string[];
}

/** Tracks the first and last time seen. */
export class TimeSpan {
  startedAt: number | undefined;
  updatedAt: number | undefined;

  see(time: number | undefined): void {
    if (time === undefined) return;
    if (this.startedAt === undefined || time < this.startedAt) this.startedAt = time;
    if (this.updatedAt === undefined || time > this.updatedAt) this.updatedAt = time;
  }

  get span(): { startedAt?: number; updatedAt?: number } {
    return {
      ...(this.startedAt !== undefined ? { startedAt: this.startedAt } : {}),
      ...(this.updatedAt !== undefined ? { updatedAt: this.updatedAt } : {}),
    };
  }
}
