/**
 * `toolmask outputs gc`: removes session folders of offloaded outputs not used (no write, no
 * read-back) for longer than a limit, never the folder of a session that is still running.
 *
 * The gateway's state folder is never cleaned here: the gateway prunes its own outputs
 * (`toolmask gateway --retention-days`) together with the conversations' decisions that point at
 * them, while `gc` would remove only the outputs, and a launcher's private gateway (not announced
 * in `gateway.json`) may be using them right now. So `gc` says so and leaves that folder alone.
 */
import { EXIT_FAILURE, EXIT_OK } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';
import { findExpiredSessionFolders, removeSessionFolder } from '../../outputs/collect-garbage.js';
import { formatAge, formatInteger } from '../../render/format.js';
import { resolveSources, type OutputsSource, type SourceOptions } from './resolve-sources.js';

export interface OutputsGcOptions extends SourceOptions {
  /** Milliseconds (parsed from `30d` and the like). */
  olderThan: number;
  dryRun?: boolean;
}

export async function runOutputsGc(options: OutputsGcOptions, io: CliIo): Promise<number> {
  const sources: OutputsSource[] = [];
  for (const source of await resolveSources(options, io)) {
    if (source.from !== 'gateway') {
      sources.push(source);
      continue;
    }
    io.stderr.write(
      `toolmask: left ${source.dir} alone: a gateway's outputs are removed by the gateway itself, with the decisions that point at them (toolmask gateway --retention-days)\n`,
    );
  }
  const now = (io.now ?? Date.now)();
  const expired = [];
  for (const source of sources) {
    for (const folder of await findExpiredSessionFolders(source.dir, options.olderThan, now)) {
      expired.push({ dir: source.dir, folder });
    }
  }
  const verb = options.dryRun ? 'would remove' : 'removed';
  let freed = 0;
  let removed = 0;
  let failed = 0;
  for (const { dir, folder } of expired) {
    try {
      if (!options.dryRun) await removeSessionFolder(dir, folder);
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
