/**
 * Temporary homes for the tests of `toolmask setup <client>`: a home and a state folder per test
 * (removed after it), and what the tests compare: every file under a folder with its bytes and
 * mode, so that `--undo` is checked to give back the whole home byte for byte.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach } from 'vitest';

/** `folders()` makes a fresh root with a home in it; the root goes after each test. */
export function temporaryHomes(prefix: string) {
  let root: string | undefined;
  afterEach(async () => {
    if (root) await fs.rm(root, { recursive: true, force: true });
    root = undefined;
  });
  return {
    async folders() {
      root = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
      const home = path.join(root, 'home');
      await fs.mkdir(home);
      return { root, home, stateDir: path.join(root, 'state'), env: { HOME: home } };
    },
  };
}

/** Every file under `folder` (links as `-> target`), with its bytes and mode. */
export async function snapshot(folder: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await fs.readdir(folder, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const name = path.relative(folder, full);
    if (entry.isSymbolicLink()) files[name] = `-> ${await fs.readlink(full)}`;
    else if (entry.isFile()) {
      const mode = ((await fs.stat(full)).mode & 0o777).toString(8);
      files[name] = `${mode} ${(await fs.readFile(full)).toString('base64')}`;
    } else files[`${name}/`] = 'folder';
  }
  return files;
}

/** Writes `text` to `file` with exactly `mode`, its folders made. */
export async function write(file: string, text: string, mode = 0o644) {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text, { mode });
  await fs.chmod(file, mode);
}

/** The backups setup left under `home`. */
export const backupsUnder = async (home: string) =>
  Object.keys(await snapshot(home)).filter((name) => name.includes('toolmask-backup'));
