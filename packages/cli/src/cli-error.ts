import { ToolmaskError } from '@toolmask/core/errors';

/** Exit codes: 0 done, 1 failure, 2 bad usage or bad input. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/**
 * An error a command reports as one line on stderr, with its exit code. Code `BAD_USAGE` (exit
 * code 2: bad usage or bad input) or `COMMAND_FAILED` (any other exit code).
 */
export class CliError extends ToolmaskError<'BAD_USAGE' | 'COMMAND_FAILED'> {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(exitCode === EXIT_USAGE ? 'BAD_USAGE' : 'COMMAND_FAILED', message);
  }
}

export const usageError = (message: string) => new CliError(message, EXIT_USAGE);
export const failure = (message: string) => new CliError(message, EXIT_FAILURE);
