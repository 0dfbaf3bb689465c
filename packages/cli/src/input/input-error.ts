/** A file that cannot be replayed: names the file and what is wrong with it, in one line. */
export class InputError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'InputError';
  }
}
