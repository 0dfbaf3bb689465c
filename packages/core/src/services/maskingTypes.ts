/**
 * The contract between the masking pass and its host: what it reads (`MaskingHost`), what it is
 * told about the request (`MaskOptions`) and what it returns (`MaskingResult`).
 */
import type { Content, Part } from '@google/gemini-cli-core';
import type { ToolOutputMaskingConfig } from '../config/toolOutputMaskingSettings.js';
import type { CacheEconomics } from './cacheEconomics.js';
import type { SupersededReason } from './superseded/supersession.js';

export type { Content, Part };

/**
 * What stays the same across a host's passes: the session and where its outputs go, and the
 * settings a call falls back to when it brings none of its own (`MaskOptions.config`). A gemini-cli
 * `Config` adapted by `withToolOutputMasking` satisfies it.
 */
export interface MaskingHost {
  /** The settings of a pass whose call gives none (`MaskOptions.config`). */
  getToolOutputMaskingConfig?(): Promise<ToolOutputMaskingConfig>;
  getSessionId(): string;
  storage: { getProjectTempDir(): string };
}

export interface MaskOptions {
  /**
   * The prompt cache is most likely cold for this request (a new user prompt after an idle gap).
   * Masking is then free of cache cost, so every prunable output is masked even below
   * `minPrunableTokensThreshold`.
   */
  cacheLikelyCold?: boolean;
  /**
   * The provider's cache economics (what a cache write and a read cost, its idle gap): a warm
   * pass masks only a batch that pays for re-writing what a break re-sends (cacheEconomics.ts).
   * @default the service's (Gemini's: no write premium, reads at 0.1)
   */
  cache?: Readonly<CacheEconomics>;
  /** Abort signal of the turn; a pass that sees it aborted stops and returns what it has. */
  signal?: AbortSignal;
  /**
   * This call's settings (a host that reads them per request). When absent, the host's
   * `getToolOutputMaskingConfig()`; a host with neither has its pass skipped (one `INTERNAL` failure).
   */
  config?: ToolOutputMaskingConfig;
  /**
   * The read-back tool as this request names it to the model, written into new snippets.
   * @default the service's `readToolName`
   */
  readToolName?: string;
  /**
   * The search tool as this request names it to the model, named in new snippets beside the
   * read-back tool. @default the service's `searchToolName`
   */
  searchToolName?: string;
}

/** Why a masked output was superseded, and by which later call (superseded/). */
export interface SupersededBy {
  /** `rerun` (the same call ran again), `read-again` (the same lines read again), `edited`. */
  reason: SupersededReason;
  /** The later call's id, when it has one. */
  callId?: string;
}

/** One output that was saved to disk and replaced by a snippet. */
export interface OffloadedOutput {
  toolName: string;
  callId: string;
  filePath: string;
  bytes: number;
  tokensBefore: number;
  tokensAfter: number;
  /** Set when the session had since replaced the output's content (its snippet says so). */
  superseded?: SupersededBy;
}

/** Where a part is in the history the pass was given. */
export interface PartLocation {
  contentIndex: number;
  partIndex: number;
}

/** One output that should have been masked but was left whole, and why. */
export interface MaskingFailure {
  toolName: string;
  callId: string;
  /** A short code: an errno (`ENOSPC`, `EACCES`, ...), `SERIALIZE`, `MALFORMED`, ... */
  code: string;
  message: string;
}

export interface MaskingResult {
  /** The history to send; the input array itself when nothing changed. */
  newHistory: readonly Content[];
  maskedCount: number;
  tokensSaved: number;
  /** Estimated tool-output tokens (unmasked, non-exempt) before and after the pass. */
  tokensBefore: number;
  tokensAfter: number;
  /** Estimated tokens that were prunable (older than the protection window) when the pass ran. */
  totalPrunableTokens: number;
  /** Masked outputs the session had since replaced (read again, edited, run again). */
  supersededCount: number;
  /** Indices of the entries of `newHistory` that differ from the input. */
  changedIndices: readonly number[];
  offloaded: readonly OffloadedOutput[];
  /**
   * Outputs the pass tried and left whole because a snippet would not save enough; they are not
   * counted again. A host that restores its decisions later (the gateway) records them too.
   */
  keptWhole: readonly PartLocation[];
  failures: readonly MaskingFailure[];
  /**
   * What made the pass mask (`threshold`, `cold_cache`, `oversized`, `room`: maskingTrigger.ts);
   * unset when it did not.
   */
  trigger?: 'threshold' | 'cold_cache' | 'oversized' | 'room';
  /** Wall time of the pass in milliseconds (from the injected clock). */
  durationMs: number;
  /** A one-line human-readable summary when something was masked, for the person at the keyboard. */
  notice?: string;
}
