/**
 * Retention after install: the session folders of offloaded outputs older than `retentionDays`
 * are removed once, in the background (storage/retention.ts). The first turn never waits for it,
 * and a process that is done anyway does not wait for housekeeping (the timer is unref'd).
 */
import { applyRetention, type RetentionReport } from '../storage/retention.js';
import type { ToolOutputMaskingHost } from './maskingHost.js';
import { formatCount } from '../utils/formatCount.js';
import { safeCall } from '../utils/safeCall.js';

export interface RetentionScheduleOptions {
  host: Pick<ToolOutputMaskingHost, 'getToolOutputMaskingConfig' | 'getSessionId' | 'storage'>;
  /** Still wanted when the timer fires (false after uninstall). */
  isActive: () => boolean;
  debug: (message: string) => void;
  onRetention?: (report: RetentionReport) => void;
}

async function runRetention(
  options: RetentionScheduleOptions,
): Promise<RetentionReport | undefined> {
  if (!options.isActive()) return undefined;
  const { host } = options;
  const { retentionDays } = await host.getToolOutputMaskingConfig();
  if (!(retentionDays > 0)) return undefined;
  const report = await applyRetention({
    projectTempDir: host.storage.getProjectTempDir(),
    retentionDays,
    keepSessions: [host.getSessionId()],
  });
  if (report.removed.length > 0 || report.failed.length > 0) {
    options.debug(
      `[toolmask] retention (${retentionDays} days): removed ${report.removed.length} session folder(s) of offloaded outputs, ${formatCount(report.bytesFreed)} bytes` +
        (report.failed.length > 0
          ? `; could not remove ${report.failed.map((f) => `${f.folder.path} (${f.message})`).join(', ')}`
          : ''),
    );
  }
  // Observers never matter to the session.
  safeCall(options.onRetention, report);
  return report;
}

/** Starts the background run; resolves to its report (undefined when it did not run). Never rejects. */
export function scheduleRetention(
  options: RetentionScheduleOptions,
): Promise<RetentionReport | undefined> {
  return new Promise((resolve) => {
    const timer = setImmediate(() => {
      runRetention(options).then(resolve, () => resolve(undefined));
    });
    timer.unref();
  });
}
