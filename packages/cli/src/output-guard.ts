/**
 * The binary's stdout and stderr as a Unix tool treats them. When the reader goes away (`| head`),
 * writing fails with EPIPE: from then on output to that stream is dropped quietly, and the command
 * ends with its own exit code (the reader chose to stop; nothing failed) instead of an "Unhandled
 * 'error' event" and a stack trace. The codes stay 0/1/2, so `set -o pipefail` scripts that page
 * through `toolmask outputs ls | head` do not fail. Any other write error (a full disk behind a
 * redirection) also stops the output, and is reported on stderr with exit code 1.
 */
import { EXIT_FAILURE } from './exit-codes.js';
import type { OutputStream } from './cli-io.js';

export interface GuardedOutput extends OutputStream {
  /** The reader closed the pipe (EPIPE). */
  readonly pipeClosed: boolean;
  /** Another write error, if one happened. */
  readonly writeError: Error | undefined;
  /** Resolves once everything written so far has gone out or failed (and was noted). */
  flush(): Promise<void>;
}

interface WritableProcessStream {
  write(text: string, callback?: (error?: Error | null) => void): boolean;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
  isTTY?: boolean;
  columns?: number;
}

export function guardOutput(stream: WritableProcessStream): GuardedOutput {
  let pipeClosed = false;
  let writeError: Error | undefined;
  stream.on('error', (error) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') pipeClosed = true;
    else writeError ??= error;
  });
  return {
    get isTTY() {
      return stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
    get pipeClosed() {
      return pipeClosed;
    },
    get writeError() {
      return writeError;
    },
    write(text: string) {
      if (pipeClosed || writeError) return false;
      try {
        return stream.write(text);
      } catch (error) {
        // A synchronous write (a file, a TTY) throws instead of emitting 'error'.
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EPIPE') pipeClosed = true;
        else writeError ??= error as Error;
        return false;
      }
    },
    flush() {
      if (pipeClosed || writeError) return Promise.resolve();
      // Called after the writes before it; a failure's 'error' event follows on the next tick.
      return new Promise((resolve) => {
        try {
          stream.write('', () => setImmediate(resolve));
        } catch {
          resolve();
        }
      });
    },
  };
}

/** The exit code once the command is done, given what happened to its output. */
export function finalExitCode(code: number, stdout: GuardedOutput, stderr: GuardedOutput): number {
  if (stdout.pipeClosed) return code;
  if (stdout.writeError) {
    stderr.write(`toolmask: cannot write the output: ${stdout.writeError.message}\n`);
    return EXIT_FAILURE;
  }
  return code;
}
