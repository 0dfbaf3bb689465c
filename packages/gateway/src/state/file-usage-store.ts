/**
 * The embedded `UsageStore`: one JSON Lines file per UTC day, `<stateDir>/usage/<YYYY-MM-DD>.jsonl`.
 * Appends are whole lines (not synced: a record is worth less than the latency of a flush), made
 * on the event loop's thread (one small append per request: cheaper than the thread pool's
 * hand-offs, core's privateFiles.ts);
 * reads go through a cache of the parsed days (usage-day-cache.ts), so a
 * dashboard refresh parses only what was appended since. Old days are pruned whole by the
 * gateway's retention (state-retention.ts). Writes and removals never go through a link planted
 * in the state folder (core's privateFiles.ts): an append to a linked day file or into a linked
 * `usage/` is refused (the gateway logs it and goes on), and so is pruning a linked `usage/`.
 *
 * A crash mid-append leaves a day file with a torn last line: the first append of a process to a
 * day file reads its last byte, and starts on a new line after a torn one (torn-line-appends.ts).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { UsageRecord } from '../usage/usage-record.js';
import type { UsageQuery, UsageStore } from './stores.js';
import { ensurePrivateDirectory } from '@toolmask/core/storage';
import { fileEndsTorn, TornLineAppends } from './torn-line-appends.js';
import { UsageDayCache } from './usage-day-cache.js';

const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.jsonl$/;
const DAY_MS = 86_400_000;

function dayOf(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

export function createFileUsageStore(stateDir: string): UsageStore {
  const folder = path.join(stateDir, 'usage');
  const cache = new UsageDayCache();
  const appends = new TornLineAppends(stateDir);
  /** Day files whose end this process has read or written. */
  const known = new Set<string>();
  async function days(): Promise<string[]> {
    try {
      return (await fs.readdir(folder))
        .map((name) => DAY_FILE.exec(name)?.[1])
        .filter((day): day is string => day !== undefined)
        .sort();
    } catch {
      return [];
    }
  }
  return {
    async append(record) {
      const file = path.join(folder, `${dayOf(record.at)}.jsonl`);
      if (!known.has(file)) {
        if (await fileEndsTorn(file)) appends.markTorn(file);
        known.add(file);
      }
      await appends.append(file, JSON.stringify(record) + '\n');
    },
    async list(query: UsageQuery = {}) {
      const firstDay = query.sinceMs !== undefined ? dayOf(query.sinceMs) : '';
      const records: UsageRecord[] = [];
      // Day files in date order; within a day, requests that overlap end out of order.
      for (const day of await days()) {
        if (day < firstDay) continue;
        for (const record of await cache.records(path.join(folder, `${day}.jsonl`))) {
          if (query.sinceMs !== undefined && record.at < query.sinceMs) continue;
          if (query.conversationId && record.conversationId !== query.conversationId) continue;
          if (query.owner !== undefined && record.owner !== query.owner) continue;
          records.push(record);
        }
      }
      return records.sort((a, b) => a.at - b.at);
    },
    async prune(beforeMs) {
      const lastKept = dayOf(beforeMs);
      let removed = 0;
      const found = await days();
      // What is listed is removed: only from the state folder's own `usage/`, never a link's target.
      if (found.length > 0) await ensurePrivateDirectory(folder, { root: stateDir });
      for (const day of found) {
        // A day's file goes when its whole day is before the limit.
        if (Date.parse(`${day}T00:00:00Z`) + DAY_MS > beforeMs || day >= lastKept) continue;
        await fs.rm(path.join(folder, `${day}.jsonl`), { force: true });
        cache.forget(path.join(folder, `${day}.jsonl`));
        known.delete(path.join(folder, `${day}.jsonl`));
        appends.forget(path.join(folder, `${day}.jsonl`));
        removed++;
      }
      return removed;
    },
  };
}
