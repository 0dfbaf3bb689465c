/**
 * `@toolmask/core/errors`: describing whatever was thrown, for messages and logs, without ever
 * throwing in turn (a value such as `Object.create(null)` cannot be printed with `String`). For
 * tools and adapters (the gateway, the CLI) that report a failure and go on.
 */
export { describeError, errorCode } from '../utils/safeCall.js';
