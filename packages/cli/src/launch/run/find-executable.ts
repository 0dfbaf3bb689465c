/**
 * Finding the client's executable before anything starts: a launcher that started its gateway
 * and printed its banner only to fail with "command not found" misleads. The lookup is the
 * shell's: a name with a slash is a path (relative to the working folder), any other name is
 * looked up in the PATH the client will get; a file that exists but is not executable is told
 * apart (exit 126, as shells do) from one that does not exist (127).
 */
import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';

export type ExecutableLookup =
  | { found: true; path: string }
  | { found: false; exitCode: 126 | 127; reason: 'not-found' | 'not-executable'; path?: string };

async function kindOf(file: string): Promise<'executable' | 'not-executable' | 'missing'> {
  try {
    const stats = await fs.stat(file);
    if (!stats.isFile()) return 'not-executable';
    await fs.access(file, constants.X_OK);
    return 'executable';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EACCES' ? 'not-executable' : 'missing';
  }
}

/** Where `bin` is, as a shell with this PATH and working folder would run it. */
export async function findExecutable(
  bin: string,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Promise<ExecutableLookup> {
  if (bin === '') return { found: false, exitCode: 127, reason: 'not-found' };
  const candidates = bin.includes('/')
    ? [path.resolve(cwd, bin)]
    : (env['PATH'] ?? '')
        .split(path.delimiter)
        // An empty PATH entry is the working folder, as in POSIX shells.
        .map((folder) => path.resolve(cwd, folder || '.', bin));
  let notExecutable: string | undefined;
  for (const candidate of candidates) {
    const kind = await kindOf(candidate);
    if (kind === 'executable') return { found: true, path: candidate };
    if (kind === 'not-executable') notExecutable ??= candidate;
  }
  return notExecutable
    ? { found: false, exitCode: 126, reason: 'not-executable', path: notExecutable }
    : { found: false, exitCode: 127, reason: 'not-found' };
}

/** The line for the person when the client cannot be run (`npmPackage`: where it comes from). */
export function missingExecutableMessage(
  client: { name: string; npmPackage: string },
  bin: string,
  lookup: Extract<ExecutableLookup, { found: false }>,
): string {
  const { name, npmPackage } = client;
  const flag = `--${name}-bin PATH (or TOOLMASK_${name.toUpperCase()}_BIN)`;
  return lookup.reason === 'not-executable'
    ? `toolmask: ${lookup.path ?? bin}: not executable; fix its mode or choose another with ${flag}`
    : `toolmask: ${bin}: command not found; install ${name} first (npm install -g ${npmPackage}) or name it with ${flag}`;
}
