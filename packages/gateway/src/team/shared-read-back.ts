/**
 * `read_tool_output` on a team gateway: the output is in the shared store (Redis, an S3 bucket, a
 * shared volume), saved by whichever replica masked it, and only whoever the tenancy lets read its
 * conversation (its owner, or the admin) may read it.
 *
 * The snippet names `<root>/tool-outputs/session-<conversation>/<file>`. The conversation's owner
 * is checked first; then the output is fetched and copied into a private folder of this replica
 * (0700, a new one per read, removed after), where core's reader does what it does for every
 * host: lines, offsets, patterns in bounded time. Its messages name the snippet's path, never
 * the copy.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import {
  TOOL_OUTPUTS_DIR,
  ToolOutputReadError,
  readToolOutput,
  sessionIdOfFolder,
  writeAtomically,
  type ReadToolOutputParams,
  type ToolOutputAccess,
} from '@toolmask/core/storage';
import type { ReadBack } from '../server/mcp-endpoint.js';
import type { Tenancy } from '../server/tenancy.js';
import type { SharedOutputStore } from '../state/stores.js';
import { ReadBackSlots } from './read-back-slots.js';

export interface SharedReadBackOptions {
  outputs: SharedOutputStore;
  /** Who may read which conversation. */
  tenancy: Tenancy;
  /** A private folder of this replica for the copies. */
  scratchDir: string;
  /** Each owner's reads in flight (read-back-slots.ts). @default 4 per owner */
  slots?: ReadBackSlots;
}

/** The conversation and path under the root of an output the snippet names; undefined: not one. */
export function sharedOutputOf(
  root: string,
  file: string,
): { conversationId: string; relative: string } | undefined {
  const relative = path.posix.relative(root, file);
  const parts = relative.split('/');
  if (parts.length !== 3 || parts[0] !== TOOL_OUTPUTS_DIR) return undefined;
  const [, folder, name] = parts as [string, string, string];
  const conversationId = sessionIdOfFolder(folder);
  if (!conversationId || !name || name === '.' || name === '..') return undefined;
  return { conversationId, relative };
}

/** A shared output copied to this replica's disk, for core's reader; `release` removes the copy. */
export interface LocalCopy {
  /** The copy's path. */
  file: string;
  access: ToolOutputAccess;
  release(): Promise<void>;
}

/**
 * The output a snippet names, copied into a folder of its own under `scratchDir` (reads of one
 * output at once never share a copy). No owner check: the caller's.
 */
export async function copySharedOutput(
  outputs: SharedOutputStore,
  scratchDir: string,
  found: { conversationId: string; relative: string },
  named: string,
): Promise<LocalCopy> {
  const bytes = await outputs.read(found.relative);
  if (!bytes) throw new ToolOutputReadError('NOT_FOUND', `no output at ${named} (expired?)`);
  const scratch = path.join(scratchDir, randomBytes(8).toString('hex'));
  const copy = path.join(scratch, found.relative);
  const release = () => fs.rm(scratch, { recursive: true, force: true });
  try {
    // The bytes as stored: no string of tens of MB made on the way.
    await writeAtomically(copy, bytes, { root: scratchDir });
  } catch (error) {
    await release();
    throw error;
  }
  return {
    file: copy,
    access: { projectTempDir: scratch, sessionId: found.conversationId, allowOtherSessions: false },
    release,
  };
}

export function sharedReadBack(options: SharedReadBackOptions): ReadBack {
  const { outputs } = options;
  const slots = options.slots ?? new ReadBackSlots();
  return async (params: ReadToolOutputParams, principal) => {
    const given = typeof params.file === 'string' ? params.file : '';
    // A search's answer names outputs by their session folder and file, as a single gateway's does.
    const file = /^session-[^/]+\/[^/]+$/.test(given)
      ? path.posix.join(outputs.root, TOOL_OUTPUTS_DIR, given)
      : given;
    const found = sharedOutputOf(outputs.root, file);
    if (!found) {
      throw new ToolOutputReadError(
        'OUTSIDE',
        `${JSON.stringify(file.slice(0, 200))} is not an output of this gateway: use the exact path from the snippet's file="..." attribute`,
      );
    }
    if (!(await options.tenancy.mayRead(principal, found.conversationId))) {
      throw new ToolOutputReadError('OTHER_SESSION', 'that output belongs to another person');
    }
    const reader = principal?.kind === 'owner' ? principal.owner : 'admin';
    return slots.run(reader, () => readCopy(options, found, params, file));
  };
}

/** The output copied to this replica's disk, read there as core reads any output, then removed. */
async function readCopy(
  options: SharedReadBackOptions,
  found: { conversationId: string; relative: string },
  params: ReadToolOutputParams,
  file: string,
): Promise<{ text: string }> {
  const copy = await copySharedOutput(options.outputs, options.scratchDir, found, file);
  try {
    const result = await readToolOutput({ ...params, file: copy.file }, copy.access);
    return { ...result, text: result.text.split(copy.file).join(file) };
  } catch (error) {
    if (error instanceof ToolOutputReadError) {
      throw new ToolOutputReadError(error.code, error.message.split(copy.file).join(file));
    }
    throw error;
  } finally {
    await copy.release();
  }
}

/**
 * The dashboard's reads of a team's outputs: a copy of the one asked for, if it is the session's,
 * in one of the reader's read-back slots (the ones `/mcp` takes), held until the copy is released.
 */
export function sharedOutputOpener(
  outputs: SharedOutputStore,
  scratchDir: string,
  slots: ReadBackSlots,
) {
  return async (sessionId: string, file: string, reader: string): Promise<LocalCopy> => {
    const found = sharedOutputOf(outputs.root, file);
    if (!found || found.conversationId !== sessionId) {
      throw new ToolOutputReadError('OUTSIDE', `${file} is not an output of session ${sessionId}`);
    }
    const slot = slots.take(reader);
    let copy: LocalCopy;
    try {
      copy = await copySharedOutput(outputs, scratchDir, found, file);
    } catch (error) {
      slot();
      throw error;
    }
    return {
      ...copy,
      release: async () => {
        try {
          await copy.release();
        } finally {
          slot();
        }
      },
    };
  };
}
