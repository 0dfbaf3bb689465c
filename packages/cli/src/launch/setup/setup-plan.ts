/**
 * What `toolmask setup <client>` will do, as each client's `setup.ts` plans it and the one engine
 * (apply-plan.ts, undo-plan.ts) carries it out and takes it back: the person's files it edits,
 * each with what it found and the changes it makes (setup-changes.ts), toolmask's own files it
 * needs, and what it says before and after.
 */
import type { SetupChange } from './setup-changes.js';
import type { SetupFile } from './setup-files.js';

/** How a file is read and edited: JSON with comments, TOML, or a `.env`'s `NAME=value` lines. */
export type SetupFormat = 'json' | 'toml' | 'env';

/** A file setup edits: what it found, and the changes it makes. */
export interface PlannedFile {
  file: string;
  format: SetupFormat;
  original: SetupFile | undefined;
  changes: SetupChange[];
  /** The bound of its reads (setup's and `--undo`'s), when not 1 MB. */
  maxBytes?: number;
  /** A change puts the gateway's access secret in it: it is left 0600. */
  holdsAccessSecret?: boolean;
}

/** A file of toolmask's own (in its state folder) a setup needs; `--undo` removes it. */
export interface OwnFile {
  file: string;
  text: string;
}

/** What setup will do for a client: its files, and lines for the person. */
export interface ClientPlan {
  files: PlannedFile[];
  /** Written after the record, before the person's files (gemini's `GEMINI_EXP` file). */
  ownFiles?: OwnFile[];
  /** Said before the changes. */
  preface?: string[];
  /** Said after the changes (what the person must know or do). */
  notes: string[];
  /** Said last, after the lines about the gateway. */
  closing?: string[];
  /**
   * `--undo` puts back all of its files or none: a file that cannot be put back stops it before
   * anything is written, and the record stays whole. For a client whose files only work
   * together (gemini: the `.env`'s base URL needs the auth type its settings choose). Otherwise
   * each file is undone on its own, and the ones that cannot be stay in the record.
   */
  undoAsOne?: boolean;
}
