/**
 * `toolmask outputs show FILE|ID`: prints one full output exactly as saved. ID is a call id or a
 * file name (or its start) in the project's outputs. Several matching files print only when they
 * hold the same text (gemini-cli may save one output more than once); otherwise they are listed.
 * An id is looked up in the gateway's state folder and the project alike (resolve-sources.ts).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isOutputOfCall } from '@toolmask/core/storage';
import { EXIT_FAILURE, EXIT_OK } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';
import { listOffloadedOutputs, type OffloadedOutputEntry } from '../../outputs/list-outputs.js';
import { describeSources, resolveSources, type SourceOptions } from './resolve-sources.js';

export interface OutputsShowOptions extends SourceOptions {
  session?: string;
}

async function isFile(candidate: string): Promise<boolean> {
  try {
    return (await fs.stat(candidate)).isFile();
  } catch {
    return false;
  }
}

/**
 * Whether `name` is gemini-cli's file for the call `id`: it writes `<tool>_<callId>_<random>.txt`,
 * each part with everything but `[A-Za-z0-9_-]` replaced by `_`, lower-cased.
 */
function isGeminiCliOutputOfCall(name: string, id: string): boolean {
  const callPart = id.replace(/[^a-zA-Z0-9_-]/g, '_').toLowerCase();
  const lower = name.toLowerCase();
  const at = lower.lastIndexOf(`_${callPart}_`);
  return at > 0 && /^[a-z0-9]+\.txt$/.test(lower.slice(at + callPart.length + 2));
}

/**
 * A call id as the agent wrote it (`astropy__astropy-14369#0`; file names hold it sanitized, by
 * toolmask's rules or gemini-cli's), a file name, or its start.
 */
function matches(output: OffloadedOutputEntry, id: string): boolean {
  const wanted = id.toLowerCase();
  return (
    isOutputOfCall(output.name, id) ||
    isGeminiCliOutputOfCall(output.name, id) ||
    output.callId.toLowerCase() === wanted ||
    output.name.toLowerCase() === wanted ||
    (wanted.length >= 4 && output.name.toLowerCase().startsWith(wanted))
  );
}

export async function runOutputsShow(
  target: string,
  options: OutputsShowOptions,
  io: CliIo,
): Promise<number> {
  const looksLikePath = target.includes('/') || target.includes(path.sep);
  const direct = path.resolve(io.cwd, target);
  if (looksLikePath || (await isFile(direct))) {
    if (!(await isFile(direct))) {
      io.stderr.write(`toolmask: ${target}: no such file\n`);
      return EXIT_FAILURE;
    }
    io.stdout.write(await fs.readFile(direct, 'utf8'));
    return EXIT_OK;
  }

  const sources = await resolveSources(options, io);
  if (sources.length === 0) return EXIT_FAILURE;
  const found: OffloadedOutputEntry[] = [];
  for (const source of sources) {
    const outputs = await listOffloadedOutputs(source.dir, { session: options.session });
    found.push(...outputs.filter((output) => matches(output, target)));
  }
  if (found.length === 0) {
    io.stderr.write(
      `toolmask: no offloaded output with id or file name ${target} in ${describeSources(sources)}\n`,
    );
    return EXIT_FAILURE;
  }
  const texts = await Promise.all(found.map((output) => fs.readFile(output.file, 'utf8')));
  if (new Set(texts).size > 1) {
    io.stderr.write(
      `toolmask: ${target} matches ${found.length} different outputs; pass one file:\n`,
    );
    for (const output of found) io.stderr.write(`  ${output.file}\n`);
    return EXIT_FAILURE;
  }
  io.stdout.write(texts[0] as string);
  return EXIT_OK;
}
