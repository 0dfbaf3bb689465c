/**
 * Outputs another host saved to files of its own, which `read_tool_output` and
 * `search_tool_outputs` reach beside toolmask's: Claude Code's persisted outputs. Claude Code saves
 * a Bash output over 30,000 characters as `<config>/projects/<project>/<session>/tool-results/
 * <id>.txt` and sends a 2 KB `<persisted-output>` preview that names that path
 * (foreignMarkers.ts). toolmask never masks that preview; the model reads or searches the file.
 *
 * Confined as toolmask's own outputs are (outputAccess.ts):
 * - the path as written is absolute and has exactly that shape under a root the host's user gave
 *   (`ToolOutputAccess.hostOutputRoots`): plain names, no `..`, a file name of at most 200
 *   letters, digits, `_`, `-` and `.`;
 * - on disk, every folder from the root to `tool-results` is a real folder (never a link), and the
 *   file's real path is directly inside it;
 * - the open itself is checked as for any output: `O_NOFOLLOW`, a regular file with one link, and
 *   the descriptor's own path inside the folder.
 *
 * A search lists at most `HOST_LISTING_LIMIT` directory entries over all roots, so a folder with
 * years of sessions costs a bounded walk.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { listedFiles, type ListedFile } from './listedFiles.js';
import { ToolOutputReadError } from './toolOutputReadError.js';

/** The folder, under a session's folder, where Claude Code keeps its persisted outputs. */
export const HOST_OUTPUT_FOLDER = 'tool-results';

/** Directory entries a search may list under all host roots together. */
export const HOST_LISTING_LIMIT = 20_000;

const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,199}$/;

function isPlainName(name: string): boolean {
  return (
    name.length > 0 && name.length <= 255 && name !== '.' && name !== '..' && !name.includes('\0')
  );
}

/** A host output found on disk: its real path and real folder (outputAccess.ts `ResolvedOutput`). */
interface HostOutputFile {
  path: string;
  folder: string;
  host: true;
}

/** A host output as the path names it: its root, and the names below the root. */
interface HostOutputPath {
  root: string;
  project: string;
  session: string;
  name: string;
}

/**
 * The host output an absolute `file` argument names, checked as written; undefined when it is not
 * under any root (the caller then treats it as one of toolmask's own).
 */
export function hostOutputPathOf(
  file: string,
  roots: readonly string[] | undefined,
): HostOutputPath | undefined {
  if (!roots?.length || !path.isAbsolute(file)) return undefined;
  if (file.split(/[\\/]+/).includes('..')) return undefined;
  const resolved = path.resolve(file);
  for (const given of roots) {
    const root = path.resolve(given);
    if (!resolved.startsWith(`${root}${path.sep}`)) continue;
    const parts = path.relative(root, resolved).split(path.sep);
    if (parts.length !== 4 || parts[2] !== HOST_OUTPUT_FOLDER) continue;
    const [project, session, , name] = parts as [string, string, string, string];
    if (isPlainName(project) && isPlainName(session) && FILE_NAME.test(name)) {
      return { root, project, session, name };
    }
  }
  return undefined;
}

/** Throws unless `folder` is a real folder (not a link); false when it is missing. */
async function isRealFolder(folder: string): Promise<boolean> {
  const stats = await fs.lstat(folder).catch(() => undefined);
  if (!stats) return false;
  if (stats.isSymbolicLink() || !stats.isDirectory()) {
    throw new ToolOutputReadError(
      'OUTSIDE',
      `${folder} is not a plain folder (a symlink or a file); toolmask does not read through it.`,
    );
  }
  return true;
}

/** The checks on disk of a host output (see the module comment); throws `ToolOutputReadError`. */
export async function resolveHostOutput(named: HostOutputPath): Promise<HostOutputFile> {
  const written = path.join(named.root, named.project, named.session, HOST_OUTPUT_FOLDER);
  const notFound = () =>
    new ToolOutputReadError(
      'NOT_FOUND',
      `${path.join(written, named.name)} does not exist (Claude Code may have removed it with its session).`,
    );
  const realRoot = await fs.realpath(named.root).catch(() => undefined);
  if (!realRoot) throw notFound();
  let folder = realRoot;
  for (const name of [named.project, named.session, HOST_OUTPUT_FOLDER]) {
    folder = path.join(folder, name);
    if (!(await isRealFolder(folder))) throw notFound();
  }
  const real = await fs.realpath(path.join(folder, named.name)).catch(() => undefined);
  if (!real) throw notFound();
  if (path.dirname(real) !== folder) {
    throw new ToolOutputReadError(
      'OUTSIDE',
      `${path.join(written, named.name)} is a link that leads outside its folder; refused.`,
    );
  }
  return { path: real, folder, host: true };
}

/** The names in a folder, at most `budget.left` of them (each counts against it). */
async function namesIn(folder: string, budget: { left: number }): Promise<string[]> {
  const names: string[] = [];
  let dir;
  try {
    dir = await fs.opendir(folder);
  } catch {
    return names;
  }
  try {
    for await (const entry of dir) {
      if (budget.left <= 0) break;
      budget.left--;
      names.push(entry.name);
    }
  } catch {
    // A folder removed while listed: what was read so far.
  }
  return names;
}

/** Every host output under `roots`, as a search lists them (within `HOST_LISTING_LIMIT` entries). */
export async function listHostOutputs(
  roots: readonly string[] | undefined,
  limit = HOST_LISTING_LIMIT,
): Promise<ListedFile[]> {
  const outputs: ListedFile[] = [];
  const budget = { left: limit };
  for (const root of roots ?? []) {
    for (const project of (await namesIn(root, budget)).filter(isPlainName)) {
      for (const session of (await namesIn(path.join(root, project), budget)).filter(isPlainName)) {
        const folder = path.join(root, project, session, HOST_OUTPUT_FOLDER);
        const names = (await namesIn(folder, budget)).filter((name) => FILE_NAME.test(name));
        outputs.push(...(await listedFiles(folder, names, (name) => path.join(folder, name))));
      }
    }
  }
  return outputs;
}
