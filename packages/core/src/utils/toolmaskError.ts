/**
 * The base class of every error toolmask throws on purpose, in every package: a message written
 * for whoever reads it (a person, a model) and a stable `code` for code that branches on it.
 *
 * Codes are SCREAMING_SNAKE strings, documented with each class (docs/architecture.md lists them
 * all) and never renamed: some reach the wire (masking failures in telemetry, the read tool's
 * error type, the dashboard's status codes). A caller checks `error instanceof ToolmaskError` and
 * branches on `error.code`; `errorCode(error, fallback)` reads the same field of anything thrown.
 * `name` is the subclass's own name, so a stack or a log line says which error it was.
 */
export abstract class ToolmaskError<Code extends string = string> extends Error {
  /** The stable, documented code of this kind of failure. */
  readonly code: Code;

  constructor(code: Code, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}
