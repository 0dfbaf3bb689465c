/**
 * `@toolmask/core/storage`: where offloaded outputs live and how they are found again: the file
 * store, the one layout module (names of folders and files), the reader, retention, and
 * gemini-cli's paths, and private files (0700 folders, 0600 files, atomic writes) for a state
 * folder. For tools (`toolmask outputs`, the gateway, the launchers).
 */
export {
  createFileToolOutputStore,
  type FileToolOutputStoreOptions,
  type StoreFileSystem,
  type ToolOutputStore,
} from '../storage/toolOutputStore.js';
export {
  TOOL_OUTPUTS_DIR,
  SESSION_FOLDER_PREFIX,
  outputFileName,
  parseOutputFileName,
  isOutputOfCall,
  sanitizeNameComponent,
  sessionFolderName,
  sessionIdOfFolder,
  sessionDirectory,
  outputsRoot,
  type OutputFileName,
} from '../storage/outputLayout.js';
export {
  READ_LIMITS,
  READ_TOOL_OUTPUT_TOOL_NAME,
  readToolOutput,
  validateReadToolOutputParams,
  ToolOutputReadError,
  type ReadToolOutputParams,
  type ReadToolOutputResult,
  type ToolOutputAccess,
  type ToolOutputReadErrorCode,
} from '../storage/toolOutputReader.js';
export { openToolOutputFile } from '../storage/outputAccess.js';
export { fullOutputText } from '../services/maskingPass/savedText.js';
export { READ_TOOL_OUTPUT_TEXT } from '../storage/readToolText.js';
export {
  SEARCH_TOOL_OUTPUTS_TOOL_NAME,
  searchToolOutputs,
  validateSearchToolOutputsParams,
  type SearchToolOutputsParams,
  type SearchToolOutputsResult,
} from '../storage/searchOutputs.js';
export { SEARCH_LIMITS } from '../storage/searchQuery.js';
export { SEARCH_TOOL_OUTPUTS_TEXT } from '../storage/searchToolText.js';
export {
  applyRetention,
  findExpiredSessionFolders,
  removeSessionFolder,
  DAY_MS,
  type RetentionOptions,
  type RetentionReport,
  type SessionFolder,
  type FindExpiredOptions,
} from '../storage/retention.js';
export {
  geminiDir,
  findProjectTempDir,
  installationIdPath,
  type Environment,
  type ProjectTempDir,
} from '../config/paths.js';
export {
  ensurePrivateDirectory,
  appendLines,
  writeAtomically,
  readIfExists,
  parseJsonLines,
} from '../storage/privateFiles.js';
