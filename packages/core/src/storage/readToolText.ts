/**
 * What the model is told about `read_tool_output`: its description and the meaning of each
 * parameter, the same for every host that offers it (core's tool in gemini-cli, the gateway's MCP
 * server), so a limit or a rule of the reader is said once and everywhere.
 */
import { READ_LIMITS } from './readSlices.js';

export const READ_TOOL_OUTPUT_TEXT = {
  description: [
    'Reads back a tool output that was saved to disk and replaced in the conversation by a <tool_output_masked ... file="..."> snippet.',
    `Returns at most ${READ_LIMITS.maxLines} lines / ${READ_LIMITS.maxBytes / 1024} KB per call, with a footer saying how to get the rest.`,
    'With pattern, returns only the matching lines, numbered, with 2 lines of context.',
  ].join(' '),
  parameters: {
    file: 'The file path from the snippet\'s file="..." attribute.',
    offset: 'First line to return, or to search from with pattern (1-based). Default 1.',
    limit: `Lines to return (default and at most ${READ_LIMITS.maxLines}); with pattern, matching lines to return (default ${READ_LIMITS.defaultMatches}, at most ${READ_LIMITS.maxMatches}).`,
    pattern:
      'Optional regular expression (RE2 syntax: like JavaScript without lookaround or backreferences), e.g. "error|FAIL" or "/timeout/i" for flags: return only the matching lines.',
  },
} as const;
