/**
 * What the model is told about `search_tool_outputs`, the same for every host that offers it
 * (core's tool in gemini-cli, the gateway's MCP server), as readToolText.ts does for the reader.
 */
import { SEARCH_LIMITS } from './searchQuery.js';

export const SEARCH_TOOL_OUTPUTS_TEXT = {
  description: [
    'Searches every tool output saved in this session, including the ones replaced in the conversation by <tool_output_masked ...> snippets, for lines holding some words.',
    `Answers with each output's file (to pass to read_tool_output), line numbers and the matching lines with ${SEARCH_LIMITS.contextLines} line of context, lines with more of the words first, at most ${SEARCH_LIMITS.maxResults} lines.`,
    'Use it when you need a line you saw earlier and do not know which output holds it.',
  ].join(' '),
  parameters: {
    query: `Words the lines should hold, matched literally and ignoring case (any of them; at most ${SEARCH_LIMITS.maxWords}), e.g. "ECONNREFUSED retryDelay". A distinctive identifier finds best.`,
    regex:
      'Optional: true to read query as one regular expression (RE2 syntax: like JavaScript without lookaround or backreferences) instead of words.',
    limit: `Matching lines to show (default ${SEARCH_LIMITS.defaultResults}, at most ${SEARCH_LIMITS.maxResults}).`,
  },
} as const;
