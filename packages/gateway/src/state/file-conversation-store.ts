/**
 * The embedded `ConversationStore`: `<stateDir>/conversations/<id>/decisions.jsonl` (one decision
 * per line, appended before the request it changes is forwarded) and `meta.json`.
 * Conversation ids are hex digests (conversation/conversation-key.ts), so they are safe folder
 * names; anything else is refused. A conversation's last activity is the newest modification of
 * its two files; `prune` removes whole folders (never following a link). Writes never go through a
 * link planted in the state folder (core's privateFiles.ts, with the state folder as the root): a
 * linked `conversations/` or `conversations/<id>/` is refused, and so is a link at a file's name.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import {
  isDecision,
  type ConversationMeta,
  type ConversationStore,
  type StoredConversation,
} from './stores.js';
import {
  appendLines,
  ensurePrivateDirectory,
  parseJsonLines,
  readIfExists,
  writeAtomically,
} from '@toolmask/core/storage';

const SAFE_ID = /^[0-9a-f]{8,64}$/;

/** Newest modification time of a conversation folder and its files (links not followed). */
async function newestModification(conversation: string): Promise<number | undefined> {
  try {
    let newest = (await fs.lstat(conversation)).mtimeMs;
    for (const name of await fs.readdir(conversation)) {
      newest = Math.max(newest, (await fs.lstat(path.join(conversation, name))).mtimeMs);
    }
    return newest;
  } catch {
    return undefined; // changed while being looked at: not ours to judge now
  }
}

export function createFileConversationStore(
  stateDir: string,
  onWarning: (message: string) => void = () => undefined,
): ConversationStore {
  const folder = (id: string) => {
    if (!SAFE_ID.test(id)) throw new Error(`not a conversation id: ${JSON.stringify(id)}`);
    return path.join(stateDir, 'conversations', id);
  };
  return {
    async load(id) {
      const decisionsFile = path.join(folder(id), 'decisions.jsonl');
      const text = (await readIfExists(decisionsFile)) ?? '';
      const decisions = parseJsonLines(text, (line) =>
        onWarning(`${decisionsFile}:${line}: not a decision record; skipped`),
      ).filter(isDecision);
      const metaText = await readIfExists(path.join(folder(id), 'meta.json'));
      let meta: ConversationMeta | undefined;
      try {
        meta = metaText ? (JSON.parse(metaText) as ConversationMeta) : undefined;
      } catch {
        onWarning(`${path.join(folder(id), 'meta.json')}: not JSON; ignored`);
      }
      const stored: StoredConversation = { decisions };
      if (meta) stored.meta = meta;
      return stored;
    },
    async appendDecisions(id, records) {
      if (records.length === 0) return;
      const lines = records.map((record) => JSON.stringify(record)).join('\n') + '\n';
      await appendLines(path.join(folder(id), 'decisions.jsonl'), lines, { root: stateDir });
    },
    async saveMeta(id, meta) {
      await writeAtomically(path.join(folder(id), 'meta.json'), JSON.stringify(meta) + '\n', {
        root: stateDir,
      });
    },
    async prune(beforeMs, keep) {
      const root = path.join(stateDir, 'conversations');
      let entries;
      try {
        entries = await fs.readdir(root, { withFileTypes: true });
      } catch {
        return 0;
      }
      // What is listed is removed: only from the state folder's own folder, never a link's target.
      if (entries.length > 0) await ensurePrivateDirectory(root, { root: stateDir });
      let removed = 0;
      for (const entry of entries) {
        if (!entry.isDirectory() || !SAFE_ID.test(entry.name) || keep.has(entry.name)) continue;
        const conversation = path.join(root, entry.name);
        const lastActive = await newestModification(conversation);
        if (lastActive === undefined || lastActive >= beforeMs) continue;
        await fs.rm(conversation, { recursive: true, force: true });
        removed++;
      }
      return removed;
    },
  };
}
