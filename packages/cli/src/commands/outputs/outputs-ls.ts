/**
 * `toolmask outputs ls`: the offloaded outputs of the gateway's state folder and of a project,
 * one line each, marked with the folder they come from. Files toolmask did not write (gemini-cli's
 * own saved outputs, in a project's `tool-outputs/`) are counted, not listed, unless `--all`: they
 * have no tool or call id toolmask can read, and are not what the person is looking for.
 */
import { EXIT_OK } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';
import { listOffloadedOutputs, type OffloadedOutputEntry } from '../../outputs/list-outputs.js';
import { formatAge, formatInteger } from '../../render/format.js';
import { renderTextTable } from '../../render/text-table.js';
import {
  gatewayWithoutOutputs,
  resolveSources,
  type OutputsFrom,
  type SourceOptions,
} from './resolve-sources.js';

export interface OutputsLsOptions extends SourceOptions {
  session?: string;
  json?: boolean;
  /** Also list files toolmask did not write. */
  all?: boolean;
}

interface ListedSource {
  from: OutputsFrom;
  dir: string;
  outputs: (OffloadedOutputEntry & { from: OutputsFrom })[];
  bytes: number;
  /** Files another writer named, left out without `--all`. */
  otherFiles: number;
}

const plural = (count: number, word: string) =>
  `${formatInteger(count)} ${word}${count === 1 ? '' : 's'}`;

export async function runOutputsLs(options: OutputsLsOptions, io: CliIo): Promise<number> {
  const sources = await resolveSources(options, io);
  const listed: ListedSource[] = [];
  for (const source of sources) {
    const found = await listOffloadedOutputs(source.dir, { session: options.session });
    const outputs = found
      .filter((output) => options.all || output.byToolmask)
      .map((output) => ({ ...output, from: source.from }));
    listed.push({
      ...source,
      outputs,
      bytes: outputs.reduce((sum, output) => sum + output.bytes, 0),
      otherFiles: found.length - outputs.length,
    });
  }
  const outputs = listed.flatMap((source) => source.outputs);
  if (options.json) {
    const project = listed.find((source) => source.from === 'project');
    const gateway = listed.find((source) => source.from === 'gateway');
    const json = {
      projectTempDir: project?.dir ?? null,
      gatewayStateDir: gateway?.dir ?? null,
      sources: listed.map(({ from, dir, outputs: its, bytes, otherFiles }) => ({
        from,
        dir,
        outputs: its.length,
        bytes,
        otherFiles,
      })),
      outputs,
    };
    io.stdout.write(JSON.stringify(json, null, 2) + '\n');
    return EXIT_OK;
  }
  // Said, so that a person whose gateway masked nothing yet sees it was looked in.
  const emptyGateway = listed.length > 0 ? await gatewayWithoutOutputs(options, io) : undefined;
  if (listed.length === 0) return EXIT_OK;
  if (outputs.length > 0) {
    const rows = [
      ['FROM', 'SESSION', 'TOOL', 'CALL ID', 'SIZE (BYTES)', 'AGE', 'FILE'],
      ...outputs.map((output) => [
        output.from,
        output.session || '-',
        output.tool || '-',
        output.callId || '-',
        formatInteger(output.bytes),
        formatAge((io.now ?? Date.now)() - output.modifiedMs),
        output.name,
      ]),
    ];
    io.stdout.write(
      renderTextTable(rows, {
        align: ['left', 'left', 'left', 'left', 'right', 'right', 'left'],
      }) + '\n',
    );
  }
  const scope = options.session ? ` for session ${options.session}` : '';
  if (emptyGateway) {
    io.stdout.write(
      `gateway: no toolmask outputs in ${emptyGateway} (it has masked nothing yet)\n`,
    );
  }
  for (const source of listed) {
    const count =
      source.outputs.length === 0
        ? `no ${options.all ? 'files' : 'toolmask outputs'}${scope}`
        : `${plural(source.outputs.length, options.all ? 'file' : 'output')}, ${plural(source.bytes, 'byte')}`;
    const others =
      source.otherFiles > 0
        ? ` (and ${plural(source.otherFiles, 'file')} toolmask did not write, gemini-cli's own; --all lists them)`
        : '';
    io.stdout.write(`${source.from}: ${count} in ${source.dir}${others}\n`);
  }
  return EXIT_OK;
}
