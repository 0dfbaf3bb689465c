/**
 * Which folders of offloaded outputs an `outputs` command looks in, each a folder holding
 * `tool-outputs/`, marked with where it comes from:
 *
 * - `gateway`: the gateway's state folder (`--state-dir`, else `~/.toolmask/gateway`), where the
 *   gateway (`toolmask gateway`, `toolmask gemini`, `toolmask qwen`) saves the outputs it masks;
 * - `project`: a project's gemini-cli temp dir (`--project`, else the current directory's), where
 *   the in-process installation saves them and gemini-cli saves its own.
 *
 * With neither option both are looked in, the gateway's first: a person who uses the gateway finds
 * its outputs from any folder, and the project's are still there. `--project` alone means that
 * folder only, `--state-dir` alone the gateway's only. A folder named on the command line that does
 * not exist is bad usage (exit 2); a default one that does not exist is simply left out.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { usageError } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';
import { defaultStateDir } from '../../launch/state-dir.js';
import { resolveProject } from './resolve-project.js';

export type OutputsFrom = 'gateway' | 'project';

export interface OutputsSource {
  from: OutputsFrom;
  /** The folder that holds `tool-outputs/`. */
  dir: string;
}

export interface SourceOptions {
  project?: string;
  stateDir?: string;
}

async function isDirectory(folder: string): Promise<boolean> {
  try {
    return (await fs.stat(folder)).isDirectory();
  } catch {
    return false;
  }
}

async function gatewaySource(
  options: SourceOptions,
  io: CliIo,
): Promise<OutputsSource | undefined> {
  const stateDir = path.resolve(io.cwd, options.stateDir ?? defaultStateDir(io.env));
  if (options.stateDir !== undefined && !(await isDirectory(stateDir))) {
    throw usageError(`--state-dir ${options.stateDir}: no such directory`);
  }
  // A gateway that has masked nothing yet has no tool-outputs/: nothing to look in.
  return (await isDirectory(path.join(stateDir, 'tool-outputs')))
    ? { from: 'gateway', dir: stateDir }
    : undefined;
}

/**
 * The gateway's state folder when it is looked in but is no source: it exists, and its gateway
 * has masked nothing yet (no tool-outputs/). `outputs ls` says it was looked in.
 */
export async function gatewayWithoutOutputs(
  options: SourceOptions,
  io: CliIo,
): Promise<string | undefined> {
  if (options.stateDir === undefined && options.project !== undefined) return undefined;
  const stateDir = path.resolve(io.cwd, options.stateDir ?? defaultStateDir(io.env));
  const empty =
    (await isDirectory(stateDir)) && !(await isDirectory(path.join(stateDir, 'tool-outputs')));
  return empty ? stateDir : undefined;
}

/** The folders to look in, gateway first; empty (with a line on stderr) when there is none. */
export async function resolveSources(options: SourceOptions, io: CliIo): Promise<OutputsSource[]> {
  const wantGateway = options.stateDir !== undefined || options.project === undefined;
  const wantProject = options.project !== undefined || options.stateDir === undefined;
  const sources: OutputsSource[] = [];
  const gateway = wantGateway ? await gatewaySource(options, io) : undefined;
  if (gateway) sources.push(gateway);
  if (wantProject) {
    // The current directory's project is a default: no word on stderr when the gateway's
    // outputs are there to list instead.
    const project = await resolveProject(options.project, io, { quiet: gateway !== undefined });
    // `--project ~/.toolmask/gateway` names the gateway's folder: marked as such, listed once.
    const sameAsGateway =
      project !== undefined &&
      path.resolve(project.dir) ===
        path.resolve(io.cwd, options.stateDir ?? defaultStateDir(io.env));
    if (project && !sources.some((source) => source.dir === project.dir)) {
      sources.push({ from: sameAsGateway ? 'gateway' : 'project', dir: project.dir });
    }
  }
  if (sources.length === 0 && options.project === undefined && options.stateDir === undefined) {
    io.stderr.write(
      `toolmask: no gateway outputs in ${defaultStateDir(io.env)} either; pass --state-dir with the gateway's state folder\n`,
    );
  }
  return sources;
}

/** The folders looked in, for messages. */
export function describeSources(sources: readonly OutputsSource[]): string {
  return sources.map((source) => source.dir).join(' and ');
}
