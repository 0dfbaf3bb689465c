/**
 * The public surface of @toolmask/cli for other code (the bench): the replay engine and its
 * strategies, the session loaders and the report builders. The binary is `dist/index.js`.
 */
export * from './replay/index.js';
export { loadInputs, type LoadedInputs, type RejectedInput } from './input/load-inputs.js';
export { loadTaskFile, type LoadedTask } from './input/load-task-file.js';
export { chainTasks } from './input/chain-tasks.js';
export { BUILTIN_EXAMPLE_PATH } from './input/builtin-example.js';
export { InputError } from './input/input-error.js';
export { chatMessagesToContents, parseChatRecordingJsonl } from './input/chat-recording.js';
export { buildReplayReport, type ReplayReport } from './render/replay-report.js';
export { renderHtmlReport } from './render/html-report.js';
export { runCli, createProgram } from './program.js';
export type { CliIo } from './cli-io.js';
