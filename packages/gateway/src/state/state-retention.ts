/**
 * Keeps the gateway's state folder bounded: what is older than `retentionDays` goes — usage
 * records (whole UTC days), conversations last active before the limit (their decisions and
 * meta), and their offloaded outputs (core's retention rule, `tool-outputs/session-*` folders
 * whose newest file is older). Conversations held in memory are kept whatever their age.
 *
 * A team gateway's shared stores expire on their own (Redis TTLs); its shared outputs are swept
 * by age here (an S3 lifecycle rule may do it instead: docs/team.md).
 *
 * It runs once when the gateway starts and then once a day; a run never throws (what could not be
 * removed is logged and tried again the next day). `retentionDays` 0 keeps everything.
 */
import { describeError } from '@toolmask/core/errors';
import { applyRetention, DAY_MS } from '@toolmask/core/storage';
import type { ConversationStore, SharedOutputStore, UsageStore } from './stores.js';

export interface StateRetentionOptions {
  stateDir: string;
  retentionDays: number;
  usage: UsageStore;
  conversations: ConversationStore;
  /**
   * Outputs kept elsewhere (a team gateway's Redis, S3, a shared folder): swept too, by age alone
   * (another replica may be using any conversation; an output is read back within minutes of its
   * save).
   */
  sharedOutputs?: readonly SharedOutputStore[];
  /** Conversations in use (never removed). */
  inUse: () => Iterable<string>;
  now: () => number;
  log: (line: string) => void;
}

export interface PruneReport {
  usageFiles: number;
  conversations: number;
  outputFolders: number;
}

/** One pass; resolves with what went. */
export async function pruneState(options: StateRetentionOptions): Promise<PruneReport> {
  const report: PruneReport = { usageFiles: 0, conversations: 0, outputFolders: 0 };
  if (!(options.retentionDays > 0)) return report;
  const now = options.now();
  const before = now - options.retentionDays * DAY_MS;
  const keep = new Set(options.inUse());
  const problem = (what: string, error: unknown) =>
    options.log(`[toolmask gateway] retention: could not prune ${what}: ${describeError(error)}`);
  try {
    report.usageFiles = await options.usage.prune(before);
  } catch (error) {
    problem('usage records', error);
  }
  try {
    report.conversations = await options.conversations.prune(before, keep);
  } catch (error) {
    problem('conversations', error);
  }
  for (const shared of options.sharedOutputs ?? []) {
    try {
      report.outputFolders += await shared.prune(before);
    } catch (error) {
      problem('shared outputs', error);
    }
  }
  const outputs = await applyRetention({
    projectTempDir: options.stateDir,
    retentionDays: options.retentionDays,
    keepSessions: [...keep],
    now: () => now,
  });
  report.outputFolders += outputs.removed.length;
  for (const failure of outputs.failed) problem(failure.folder.path, failure.message);
  return report;
}

/** Runs `pruneState` now and every day until `stop()`. */
export function scheduleStateRetention(options: StateRetentionOptions): {
  /** The first run. */
  first: Promise<PruneReport>;
  stop(): void;
} {
  const run = () =>
    pruneState(options).then((report) => {
      const removed = report.usageFiles + report.conversations + report.outputFolders;
      if (removed > 0) {
        options.log(
          `[toolmask gateway] retention (${options.retentionDays} days): removed ${report.usageFiles} usage day file(s), ${report.conversations} conversation(s), ${report.outputFolders} output folder(s)`,
        );
      }
      return report;
    });
  const first = run();
  const timer = setInterval(() => void run(), DAY_MS).unref();
  return { first, stop: () => clearInterval(timer) };
}
