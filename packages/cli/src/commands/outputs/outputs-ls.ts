/** `toolmask outputs ls`: the offloaded outputs of a project, one line each. */
import { EXIT_OK } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';
import { listOffloadedOutputs } from '../../outputs/list-outputs.js';
import { formatAge, formatInteger } from '../../render/format.js';
import { renderTextTable } from '../../render/text-table.js';
import { resolveProject } from './resolve-project.js';

export interface OutputsLsOptions {
  project?: string;
  session?: string;
  json?: boolean;
}

export async function runOutputsLs(options: OutputsLsOptions, io: CliIo): Promise<number> {
  const project = await resolveProject(options.project, io);
  const outputs = project
    ? await listOffloadedOutputs(project.dir, { session: options.session })
    : [];
  const now = (io.now ?? Date.now)();
  if (options.json) {
    io.stdout.write(
      JSON.stringify({ projectTempDir: project?.dir ?? null, outputs }, null, 2) + '\n',
    );
    return EXIT_OK;
  }
  if (!project) return EXIT_OK;
  if (outputs.length === 0) {
    const scope = options.session ? ` for session ${options.session}` : '';
    io.stdout.write(`No offloaded outputs in ${project.dir}${scope}.\n`);
    return EXIT_OK;
  }
  const rows = [
    ['SESSION', 'TOOL', 'CALL ID', 'SIZE (BYTES)', 'AGE', 'FILE'],
    ...outputs.map((output) => [
      output.session || '-',
      output.tool || '?',
      output.callId || '?',
      formatInteger(output.bytes),
      formatAge(now - output.modifiedMs),
      output.name,
    ]),
  ];
  io.stdout.write(
    renderTextTable(rows, { align: ['left', 'left', 'left', 'right', 'right', 'left'] }) + '\n',
  );
  const bytes = outputs.reduce((sum, output) => sum + output.bytes, 0);
  io.stdout.write(
    `${formatInteger(outputs.length)} output${outputs.length === 1 ? '' : 's'}, ` +
      `${formatInteger(bytes)} bytes in ${project.dir}\n`,
  );
  return EXIT_OK;
}
