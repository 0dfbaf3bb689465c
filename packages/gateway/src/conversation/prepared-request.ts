/**
 * What one request's pass over its conversation takes (the request's own settings, its protocol's
 * cache economics, how its body was read) and gives back (the contents to send and what the pass
 * found, for the usage record): `Conversation.prepareInTurn` (conversation.ts).
 */
import type {
  CacheEconomics,
  Content,
  MaskingResult,
  ToolOutputMaskingConfig,
} from '@toolmask/core';
import type { SentBefore } from '../body/incremental-read.js';
import type { StoreLookAhead } from './conversation-sync.js';

export interface PrepareOptions {
  /** The masking settings as read for this request. */
  config: ToolOutputMaskingConfig;
  signal?: AbortSignal;
  /** The read-back tool as this request declares it (named in new snippets). */
  readToolName?: string;
  /**
   * The cache economics of the request's protocol: the pass's warm trigger weighs a break at its
   * prices, and its idle gap is the cold signal's (unless the gateway set `idleGapMs`).
   */
  cache?: Readonly<CacheEconomics>;
  /**
   * `incoming` comes from an incremental reader, which keeps what is sent for an entry in place
   * of the client's version (body/incremental-body.ts): the conversation does the same, so a
   * masked output's whole text is let go as soon as the request is written. Otherwise the
   * request's bytes are kept until the next one (counted for the memory bound).
   */
  keptAsSent?: boolean;
  /**
   * The first entries of `incoming` that are the very objects of what was sent last time, as the
   * incremental reader vouches (body/incremental-read.ts): taken as sent without comparing.
   */
  sentBefore?: SentBefore | undefined;
  /** Bytes of a request read whole, for the memory bound. */
  retainedBytes?: number;
  /** The catch-up read started before the body was decoded (`lookAhead`), in this turn. */
  lookAhead?: StoreLookAhead;
}

export interface PreparedRequest {
  /** The contents to send. */
  contents: Content[];
  /**
   * Entries of `contents` that differ from `incoming` (an entry that came as what was sent for it
   * last time is not among them: body/incremental-body.ts writes it from what it wrote).
   */
  changedIndices: number[];
  /**
   * Entries of `contents` that are not the very objects of `incoming` (ascending): what an
   * incremental reader writes anew or from what it wrote (body/element-writes.ts).
   */
  differs: number[];
  result: MaskingResult;
  cacheLikelyCold: boolean;
  /** Masked outputs in the request as sent, and the tokens they keep out (estimates). */
  maskedOutputs: number;
  tokensKeptOut: number;
  /** Decisions made by this request's pass that could not be saved (the request went without them). */
  unsavedDecisions: number;
  /**
   * A shared store could not be read before the pass: the request went with the decisions this
   * gateway knew, perhaps not all there are (counted as a failure).
   */
  storeBehind?: true;
}
