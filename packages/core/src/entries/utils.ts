/**
 * `@toolmask/core/utils`: small helpers the CLI and the gateway share: the JSON object test,
 * deep equality of parsed JSON, and whether a recorded process id is still alive.
 */
export { isPlainObject } from '../utils/safeCall.js';
export { sameJson } from '../utils/sameJson.js';
export { isProcessAlive } from '../utils/processAlive.js';
