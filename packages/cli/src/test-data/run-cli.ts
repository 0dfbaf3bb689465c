/** Runs the CLI in-process with captured output (no TTY, no colors unless asked). */
import { runCli } from '../program.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCliCaptured(
  args: readonly string[],
  options: {
    cwd?: string;
    env?: Record<string, string | undefined>;
    isTTY?: boolean;
    now?: number;
  } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: {
      write: (text: string) => (stdout += text),
      isTTY: options.isTTY ?? false,
      columns: 100,
    },
    stderr: { write: (text: string) => (stderr += text), isTTY: false },
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    ...(options.now !== undefined ? { now: () => options.now as number } : {}),
  });
  return { code, stdout, stderr };
}
