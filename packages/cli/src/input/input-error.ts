/** A file that cannot be replayed: names the file and what is wrong with it, in one line. */
export class InputError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
    /**
     * `not-a-session`: well-formed data of some other kind (a settings file, a log, an empty
     * array), skipped with a warning when found in a directory; `invalid`: unreadable or damaged.
     */
    readonly kind: 'invalid' | 'not-a-session' = 'invalid',
  ) {
    super(`${file}: ${reason}`);
    this.name = 'InputError';
  }
}
