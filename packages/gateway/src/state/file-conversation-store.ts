/**
 * The embedded `ConversationStore`: `<stateDir>/conversations/<id>/decisions.jsonl` (one decision
 * per line, appended before the request it changes is forwarded), `meta.jsonl` (the state after
 * each answer, one line each: meta-log.ts) and, when a conversation is claimed, `owner`. The decisions and the state, written with every request that changes them, are
 * written on the event loop's thread (a few small calls: cheaper than the thread pool's
 * hand-offs, core's privateFiles.ts). Conversation ids are hex digests
 * (conversation/conversation-key.ts), so they are safe folder names; anything else is refused. A
 * conversation's last activity is the newest modification of its files; `prune` removes whole
 * folders (never following a link). Writes never go through a link planted in the state folder
 * (core's privateFiles.ts, with the state folder as the root): a linked `conversations/` or
 * `conversations/<id>/` is refused, and so is a link at a file's name.
 *
 * One gateway writes it: a conditional append and a claim are atomic against the other calls of
 * this store (they take their conversation's turn, one at a time), not against another process
 * writing the same folder. Decisions are counted as `load` gives them (a line that is no decision
 * record is skipped, and counts for nothing).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import {
  ensurePrivateDirectory,
  parseJsonLines,
  readIfExists,
  writeAtomically,
} from '@toolmask/core/storage';
import {
  CONVERSATION_ID,
  DecisionConflictError,
  checkCount,
  isDecision,
  type ConversationMeta,
  type ConversationStore,
  type ConversationUpdate,
  type DecisionRecord,
  type StoredConversation,
} from './stores.js';
import { MetaLog } from './meta-log.js';
import { endsTorn, TornLineAppends } from './torn-line-appends.js';

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
  return new FileConversationStore(stateDir, onWarning);
}

class FileConversationStore implements ConversationStore {
  /** Per conversation, its appends and claims in turn (the tail of its chain). */
  private readonly turns = new Map<string, Promise<unknown>>();
  private readonly metaLog: MetaLog;
  /** Decisions are appended on a new line after a torn one (torn-line-appends.ts). */
  private readonly decisionAppends: TornLineAppends;

  constructor(
    private readonly stateDir: string,
    private readonly onWarning: (message: string) => void,
  ) {
    this.metaLog = new MetaLog(stateDir, onWarning);
    this.decisionAppends = new TornLineAppends(stateDir);
  }

  async load(id: string): Promise<StoredConversation> {
    const decisionsFile = path.join(this.folder(id), 'decisions.jsonl');
    const text = (await readIfExists(decisionsFile)) ?? '';
    if (endsTorn(text)) this.decisionAppends.markTorn(decisionsFile);
    const decisions = parseJsonLines(text, (line) =>
      this.onWarning(`${decisionsFile}:${line}: not a decision record; skipped`),
    ).filter(isDecision);
    const meta = await this.metaLog.read(this.folder(id));
    const stored: StoredConversation = { decisions };
    if (meta) stored.meta = meta;
    return stored;
  }

  async since(id: string, known: number): Promise<ConversationUpdate> {
    this.folder(id);
    checkCount('known', known);
    const stored = await this.load(id);
    return { ...stored, decisions: stored.decisions.slice(known) };
  }

  async appendDecisions(
    id: string,
    records: readonly DecisionRecord[],
    expectedCount?: number,
  ): Promise<void> {
    const file = path.join(this.folder(id), 'decisions.jsonl');
    if (expectedCount !== undefined) checkCount('expectedCount', expectedCount);
    return this.inTurn(id, async () => {
      if (expectedCount !== undefined) {
        const count = (await this.load(id)).decisions.length;
        if (count !== expectedCount) throw new DecisionConflictError(id, count);
      }
      if (records.length === 0) return;
      const lines = records.map((record) => JSON.stringify(record)).join('\n') + '\n';
      await this.decisionAppends.append(file, lines);
    });
  }

  async saveMeta(id: string, meta: ConversationMeta): Promise<void> {
    await this.metaLog.append(this.folder(id), meta);
  }

  async claimOwner(id: string, owner: string): Promise<string> {
    const file = path.join(this.folder(id), 'owner');
    return this.inTurn(id, async () => {
      const claimed = await readIfExists(file);
      if (claimed !== undefined) return claimed;
      await writeAtomically(file, owner, { root: this.stateDir });
      return owner;
    });
  }

  async ownerOf(id: string): Promise<string | undefined> {
    return readIfExists(path.join(this.folder(id), 'owner'));
  }

  async prune(beforeMs: number, keep: ReadonlySet<string>): Promise<number> {
    const root = path.join(this.stateDir, 'conversations');
    let entries;
    try {
      entries = await fs.readdir(root, { withFileTypes: true });
    } catch {
      return 0;
    }
    // What is listed is removed: only from the state folder's own folder, never a link's target.
    if (entries.length > 0) await ensurePrivateDirectory(root, { root: this.stateDir });
    let removed = 0;
    for (const entry of entries) {
      if (!entry.isDirectory() || !CONVERSATION_ID.test(entry.name) || keep.has(entry.name))
        continue;
      const conversation = path.join(root, entry.name);
      const lastActive = await newestModification(conversation);
      if (lastActive === undefined || lastActive >= beforeMs) continue;
      await fs.rm(conversation, { recursive: true, force: true });
      this.metaLog.forget(conversation);
      this.decisionAppends.forget(path.join(conversation, 'decisions.jsonl'));
      removed++;
    }
    return removed;
  }

  private folder(id: string): string {
    if (!CONVERSATION_ID.test(id)) throw new Error(`not a conversation id: ${JSON.stringify(id)}`);
    return path.join(this.stateDir, 'conversations', id);
  }

  /** Runs `task` after the conversation's earlier appends and claims (a failure ends only its own). */
  private inTurn<T>(id: string, task: () => Promise<T>): Promise<T> {
    const before = this.turns.get(id) ?? Promise.resolve();
    const run = before.then(task, task);
    const tail = run.catch(() => undefined);
    this.turns.set(id, tail);
    void tail.then(() => {
      if (this.turns.get(id) === tail) this.turns.delete(id);
    });
    return run;
  }
}
