/**
 * The lines `toolmask replay` prints on stderr about its inputs before the run: one per file not
 * replayed, one warning per file skipped as not a session, the warnings of each loaded session,
 * and how many session files each directory held.
 */
import type { OutputStream } from '../../cli-io.js';
import type { LoadedInputs } from '../../input/load-inputs.js';
import { formatInteger } from '../../render/format.js';

export function announceInputs(inputs: LoadedInputs, stderr: OutputStream): void {
  for (const entry of inputs.rejected) stderr.write(`toolmask: ${entry.file}: ${entry.reason}\n`);
  for (const entry of inputs.skipped) {
    stderr.write(`toolmask: warning: ${entry.file}: skipped, ${entry.reason}\n`);
  }
  for (const task of inputs.tasks) {
    for (const warning of task.warnings) stderr.write(`toolmask: ${task.file}: ${warning}\n`);
  }
  for (const { directory, sessions, skipped } of inputs.directories) {
    if (sessions === 0) continue;
    stderr.write(
      `toolmask: found ${formatInteger(sessions)} session file${sessions === 1 ? '' : 's'} in ${directory}` +
        (skipped > 0 ? ` (${formatInteger(skipped)} other skipped)` : '') +
        '\n',
    );
  }
}
