/**
 * `@toolmask/core/utils`: small helpers the CLI and the gateway share: the JSON object test,
 * deep equality of parsed JSON, whether a recorded process id is still alive, one-shot digests, and long work in
 * stretches that leave the event loop its turns.
 */
export { isPlainObject } from '../utils/safeCall.js';
export { readUpTo } from '../utils/boundedRead.js';
export { sameJson } from '../utils/sameJson.js';
export { isProcessAlive } from '../utils/processAlive.js';
export { digestOf } from '../utils/oneShotDigest.js';
export { eventLoopPauser, yieldToEventLoop, type EventLoopPauser } from '../utils/eventLoop.js';
