/**
 * Where the gateway keeps its state unless told (`--state-dir`): `$TOOLMASK_HOME/gateway`, else
 * `~/.toolmask/gateway`. The folder is created 0700 on first use.
 */
import * as os from 'node:os';
import * as path from 'node:path';

export function defaultStateDir(
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const home = env['TOOLMASK_HOME'] || path.join(os.homedir() || os.tmpdir(), '.toolmask');
  return path.join(home, 'gateway');
}
