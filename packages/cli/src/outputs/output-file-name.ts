/**
 * Reads tool and call id back from an offloaded output's file name, `<tool>_<callId>_<suffix>.txt`
 * (suffix: a content hash from toolmask, a random string from gemini-cli). Tool names contain `_`
 * too, so known tool names are matched first; an unknown tool is taken to be the first segment.
 */
export interface OutputFileName {
  tool: string;
  callId: string;
}

const KNOWN_TOOLS = [
  'run_shell_command',
  'read_file',
  'read_many_files',
  'write_file',
  'replace',
  'list_directory',
  'glob',
  'grep_search',
  'search_file_content',
  'google_web_search',
  'web_fetch',
  'write_todos',
  'save_memory',
  'activate_skill',
  'ask_user',
  'enter_plan_mode',
  'exit_plan_mode',
  'get_internal_docs',
  'read_mcp_resource',
  'list_mcp_resources',
  'invoke_agent',
  'complete_task',
  'update_topic',
  'read_tool_output',
  'submit',
].sort((left, right) => right.length - left.length);

export function parseOutputFileName(fileName: string): OutputFileName | undefined {
  const match = /^(.+)_([^_]+)\.txt$/.exec(fileName);
  if (!match) return undefined;
  const stem = match[1] as string;
  const lower = stem.toLowerCase();
  const known = KNOWN_TOOLS.find((tool) => lower.startsWith(`${tool}_`));
  if (known) return { tool: stem.slice(0, known.length), callId: stem.slice(known.length + 1) };
  const split = stem.indexOf('_');
  if (split <= 0) return { tool: stem, callId: '' };
  return { tool: stem.slice(0, split), callId: stem.slice(split + 1) };
}
