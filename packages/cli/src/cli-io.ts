/** What a command reads from and writes to; `process` in the binary (index.ts), fakes in tests. */
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
