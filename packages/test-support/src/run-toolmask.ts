/**
 * The built `toolmask` command run as a person runs it, for the end-to-end tests of its launchers:
 * `node packages/cli/dist/index.js ARGS` in a folder, with an environment, its exit code and both
 * outputs once it has closed.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The built CLI's entry. */
export const TOOLMASK_CLI = path.join(REPO, 'packages/cli/dist/index.js');
/** Where the agent binaries installed from npm are, as a person's PATH would hold them. */
export const REPO_BIN = path.join(REPO, 'node_modules/.bin');

export interface ToolmaskRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function runToolmask(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<ToolmaskRun> {
  const child = spawn(process.execPath, [TOOLMASK_CLI, ...args], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}
