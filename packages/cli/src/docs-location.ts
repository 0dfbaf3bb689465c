/**
 * Where a person reads more about the command, as a path that exists where the command runs: in
 * a checkout of the repository, `docs/cli.md` (the full reference); in an installed package,
 * which ships no `docs/`, the package's README.md. `--help` shows it absolute: a relative path
 * means something only in the folder the person happened to run it from. (The replay's closing
 * line, read right where it ran, shows it relative when it can: `displayPath`.)
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package folder: one level above `src/` and `dist/`. */
const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));

export function cliDocumentationPath(): string {
  const inCheckout = path.basename(path.dirname(path.resolve(PACKAGE_ROOT))) === 'packages';
  const reference = path.resolve(PACKAGE_ROOT, '..', '..', 'docs', 'cli.md');
  return inCheckout && existsSync(reference) ? reference : path.join(PACKAGE_ROOT, 'README.md');
}

/** `file` relative to `cwd` when it is below it, else absolute. */
export function displayPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}
