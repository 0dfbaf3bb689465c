/** Exit codes: 0 done, 1 failure, 2 bad usage or bad input. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** An error a command reports as one line on stderr, with its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (message: string) => new CliError(message, EXIT_USAGE);
export const failure = (message: string) => new CliError(message, EXIT_FAILURE);
