/**
 * `toolmask outputs gc`: removes session folders of offloaded outputs not used (no write, no
 * read-back) for longer than a limit, never the folder of a session that is still running.
 */
import { EXIT_FAILURE, EXIT_OK } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';
import { findExpiredSessionFolders, removeSessionFolder } from '../../outputs/collect-garbage.js';
import { formatAge, formatInteger } from '../../render/format.js';
import { resolveProject } from './resolve-project.js';

export const DEFAULT_GC_AGE = '30d';

export interface OutputsGcOptions {
  project?: string;
  /** Milliseconds (parsed from `30d` and the like). */
  olderThan: number;
  dryRun?: boolean;
}

export async function runOutputsGc(options: OutputsGcOptions, io: CliIo): Promise<number> {
  const project = await resolveProject(options.project, io);
  if (!project) return EXIT_OK;
  const now = (io.now ?? Date.now)();
  const expired = await findExpiredSessionFolders(project.dir, options.olderThan, now);
  const verb = options.dryRun ? 'would remove' : 'removed';
  let freed = 0;
  let removed = 0;
  let failed = 0;
  for (const folder of expired) {
    try {
      if (!options.dryRun) await removeSessionFolder(project.dir, folder);
    } catch (error) {
      failed++;
      io.stderr.write(`toolmask: could not remove ${folder.path}: ${(error as Error).message}\n`);
      continue;
    }
    removed++;
    freed += folder.bytes;
    io.stdout.write(
      `${verb} ${folder.path} (${formatInteger(folder.files)} files, ` +
        `${formatInteger(folder.bytes)} bytes, last used ${formatAge(now - folder.newestMs)} ago)\n`,
    );
  }
  const summary = options.dryRun
    ? `Would remove ${formatInteger(removed)} session folder${removed === 1 ? '' : 's'} and free ${formatInteger(freed)} bytes (dry run).`
    : `Removed ${formatInteger(removed)} session folder${removed === 1 ? '' : 's'}, freed ${formatInteger(freed)} bytes.`;
  io.stdout.write(`${summary}\n`);
  return failed > 0 ? EXIT_FAILURE : EXIT_OK;
}
