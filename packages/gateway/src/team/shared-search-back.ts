/**
 * `search_tool_outputs` on a team gateway (issue 32), scoped to who asks: the owner's own outputs,
 * from the index of what each owner saved (state/redis/redis-owner-outputs.ts, shared by every
 * replica), never anyone else's. The outputs the index names (the newest first, at most
 * `SEARCH_OUTPUTS` of them and `SEARCH_BYTES` in all) are copied from the shared store into a
 * private folder of this replica, the layout a single gateway keeps on its disk, and core's search
 * runs over that folder, in its bounded time; the answer names the snippets' paths, never the
 * copy. A search takes one of the owner's read-back slots (read-back-slots.ts). The admin, who
 * may read any owner's output, searches every owner's within the same bounds (the newest first),
 * in the admin's own slots.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import {
  ToolOutputReadError,
  searchToolOutputs,
  writeAtomically,
  type SearchToolOutputsParams,
} from '@toolmask/core/storage';
import type { SearchBack } from '../server/mcp-endpoint.js';
import type { OwnerOutputIndex, SharedOutputStore } from '../state/stores.js';
import type { ConversationOwners } from './conversation-owners.js';
import type { ReadBackSlots } from './read-back-slots.js';
import { sharedOutputOf } from './shared-read-back.js';

/** Outputs one search goes through at most, the owner's newest first. */
export const SEARCH_OUTPUTS = 200;
/** Bytes of outputs one search copies at most. */
export const SEARCH_BYTES = 64 * 1024 * 1024;

/** The admin's slots, shared with the admin's reads (shared-read-back.ts). */
const ADMIN_SLOTS = 'admin';

export interface SharedSearchBackOptions {
  outputs: SharedOutputStore;
  index: OwnerOutputIndex;
  /** Who owns each conversation: an indexed output is searched only for its conversation's owner. */
  owners: ConversationOwners;
  scratchDir: string;
  slots: ReadBackSlots;
}

export function sharedSearchBack(options: SharedSearchBackOptions): SearchBack {
  return async (params: SearchToolOutputsParams, principal) => {
    if (principal?.kind === 'admin') {
      return options.slots.run(ADMIN_SLOTS, () => searchOwn(options, undefined, params));
    }
    if (principal?.kind !== 'owner') {
      throw new ToolOutputReadError(
        'INVALID_PARAMS',
        "search on a team gateway goes through the asker's own outputs: ask with a person's key",
      );
    }
    const owner = principal.owner;
    return options.slots.run(owner, () => searchOwn(options, owner, params));
  };
}

/** `owner`'s outputs; undefined: every owner's (the admin's). */
async function searchOwn(
  options: SharedSearchBackOptions,
  owner: string | undefined,
  params: SearchToolOutputsParams,
): Promise<{ text: string }> {
  const { outputs } = options;
  const scratch = path.join(options.scratchDir, randomBytes(8).toString('hex'));
  try {
    await copyOwnOutputs(options, owner, scratch);
    const result = await searchToolOutputs(params, {
      projectTempDir: scratch,
      sessionId: '',
      allowOtherSessions: true,
    });
    return { text: result.text.split(scratch).join(outputs.root) };
  } catch (error) {
    if (error instanceof ToolOutputReadError) {
      throw new ToolOutputReadError(error.code, error.message.split(scratch).join(outputs.root));
    }
    throw error;
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

/** The owner's indexed outputs (every owner's: undefined), newest first, within the bounds, copied under `scratch`. */
async function copyOwnOutputs(
  options: SharedSearchBackOptions,
  owner: string | undefined,
  scratch: string,
): Promise<void> {
  const { outputs } = options;
  await fs.mkdir(scratch, { recursive: true, mode: 0o700 });
  let bytes = 0;
  const listed =
    owner === undefined
      ? await options.index.listAll(SEARCH_OUTPUTS)
      : await options.index.list(owner, SEARCH_OUTPUTS);
  for (const relative of listed) {
    const found = sharedOutputOf(outputs.root, path.posix.join(outputs.root, relative));
    if (!found) continue;
    // The index is the replicas' own writing; the conversation's owner is checked all the same.
    if (owner !== undefined && (await options.owners.ownerOf(found.conversationId)) !== owner) {
      continue;
    }
    const data = await outputs.read(found.relative);
    if (!data) continue;
    bytes += data.length;
    if (bytes > SEARCH_BYTES) break;
    await writeAtomically(path.join(scratch, found.relative), data.toString('utf8'), {
      root: options.scratchDir,
    });
  }
}
