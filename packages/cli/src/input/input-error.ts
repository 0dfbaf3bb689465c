import { ToolmaskError } from '@toolmask/core/errors';

/**
 * A file that cannot be replayed: names the file and what is wrong with it, in one line. Code
 * `INVALID_INPUT` (kind `invalid`) or `NOT_A_SESSION` (kind `not-a-session`).
 */
export class InputError extends ToolmaskError<'INVALID_INPUT' | 'NOT_A_SESSION'> {
  constructor(
    readonly file: string,
    readonly reason: string,
    /**
     * `not-a-session`: well-formed data of some other kind (a settings file, a log, an empty
     * array), skipped with a warning when found in a directory; `invalid`: unreadable or damaged.
     */
    readonly kind: 'invalid' | 'not-a-session' = 'invalid',
  ) {
    super(kind === 'not-a-session' ? 'NOT_A_SESSION' : 'INVALID_INPUT', `${file}: ${reason}`);
  }
}
