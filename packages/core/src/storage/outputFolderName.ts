/**
 * The name of the folder that holds every session's offloaded outputs (outputLayout.ts, which
 * re-exports it, is the layout), alone: `config/paths.ts` needs only the name, and every launcher
 * loads that module before its client starts, where the layout's hashing and chunking are not
 * needed (issue 30).
 */
export const TOOL_OUTPUTS_DIR = 'tool-outputs';
