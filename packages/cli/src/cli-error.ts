import { ToolmaskError } from '@toolmask/core/errors';
import { EXIT_FAILURE, EXIT_USAGE } from './exit-codes.js';

export { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './exit-codes.js';

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
