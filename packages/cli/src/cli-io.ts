/** What a command reads from and writes to; `process` in the binary, fakes in tests. */
export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Milliseconds since the epoch (ages, gc). @default Date.now */
  now?: () => number;
  /** Resolves with the name of the first SIGINT or SIGTERM (servers wait on it). */
  shutdownSignal?: () => Promise<string>;
}

export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    shutdownSignal: () =>
      new Promise((resolve) => {
        for (const signal of ['SIGINT', 'SIGTERM'] as const)
          process.once(signal, () => resolve(signal));
      }),
  };
}
