/**
 * `@toolmask/core/files`: private folders and atomic writes (and gemini-cli's home), alone, for
 * code that must load cheaply: a launcher's path before its client starts, the gateway's access
 * secret. `/storage` has these too, with the whole store and reader.
 */
export { ensurePrivateDirectory, readIfExists, writeAtomically } from '../storage/privateFiles.js';
export { geminiDir } from '../config/paths.js';
