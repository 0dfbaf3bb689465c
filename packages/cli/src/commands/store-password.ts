/**
 * The Redis password of a team store, kept off the command line (issue 33, finding 12): any local
 * account reads a process's arguments (`ps`, `/proc/<pid>/cmdline`), so `--store
 * redis://:PASSWORD@host` shows it to them. The password comes from `REDIS_PASSWORD_FILE` (a file
 * holding it, as a container secret is mounted) or `REDIS_PASSWORD`, and joins the URL in memory
 * only; a password given in `--store` still works, with a warning.
 */
import { readFileSync } from 'node:fs';
import { usageError } from '../cli-error.js';
import type { CliIo } from '../cli-io.js';

export const PASSWORD_ENV = 'REDIS_PASSWORD';
export const PASSWORD_FILE_ENV = 'REDIS_PASSWORD_FILE';

function passwordFromEnv(io: CliIo): string | undefined {
  const file = io.env[PASSWORD_FILE_ENV];
  if (file) {
    try {
      return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      throw usageError(`${PASSWORD_FILE_ENV} ${file}: ${(error as Error).message}`);
    }
  }
  return io.env[PASSWORD_ENV] || undefined;
}

/** `store` with the password of the environment, when it names none itself. */
export function storeWithPassword(io: CliIo, store: string): string {
  let url: URL;
  try {
    url = new URL(store);
  } catch {
    return store; // the store's own parser says what is wrong with it
  }
  if (url.password) {
    io.stderr.write(
      `toolmask: the password in --store is visible to every local account (ps); put it in ${PASSWORD_ENV} or ${PASSWORD_FILE_ENV} instead\n`,
    );
    return store;
  }
  const password = passwordFromEnv(io);
  if (password === undefined) return store;
  url.password = encodeURIComponent(password);
  return url.toString();
}
