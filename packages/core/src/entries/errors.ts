/**
 * `@toolmask/core/errors`: the base class of toolmask's own errors (`ToolmaskError`, with a stable
 * `code`), and describing whatever was thrown, for messages and logs, without ever throwing in
 * turn (a value such as `Object.create(null)` cannot be printed with `String`). For tools and
 * adapters (the gateway, the CLI) that define their own errors, report a failure and go on.
 */
export { ToolmaskError } from '../utils/toolmaskError.js';
export { describeError, errorCode } from '../utils/safeCall.js';
export {
  MissingPackageError,
  loadOptionalPackage,
  isMissingPackage,
  type OptionalPackage,
} from '../utils/optionalPackage.js';
