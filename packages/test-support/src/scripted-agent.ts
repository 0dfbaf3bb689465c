/**
 * The scripted model of the end-to-end tests with the real `gemini` and `qwen` binaries: it
 * makes the agent run a shell command with a bulky output several times (each command different:
 * both CLIs stop an agent that repeats itself), then read back one masked output through the
 * gateway's MCP tool, then (when asked) search the saved outputs for a line only the first one
 * holds, then answer with a line quoting what it read back.
 */
import { parseMaskedSnippet } from '@toolmask/core';

/** The shell command of step `step`: about 2,500 numbered lines, different for every step. */
export function bulkyCommand(step: number): string {
  const first = step * 10_000 + 1;
  return `seq ${first} ${first + 2_499} | sed 's/^/row /'`;
}

export const FINAL_PREFIX = 'FINAL ANSWER:';

/** The line the search step looks for: in the first shell output, line 17. */
export const SEARCHED_LINE = 'row 17';

/** The file of the first masked snippet among tool outputs (core's parser reads the header). */
export function snippetFile(outputs: readonly string[]): string | undefined {
  for (const output of outputs) {
    const parsed = parseMaskedSnippet(output);
    if (parsed) return parsed.filePath;
  }
  return undefined;
}

export type AgentStep =
  | { kind: 'shell'; step: number; command: string }
  | { kind: 'read-back'; file: string }
  | { kind: 'search'; query: string; regex: true }
  | { kind: 'answer'; text: string };

/**
 * The next step, from how many shell outputs and read-backs the conversation holds so far.
 * `readBackOutput` is the text the read-back returned, quoted in the final answer.
 */
export function nextStep(options: {
  shellOutputs: number;
  readBacks: number;
  shellSteps: number;
  /** The tool outputs of the request, oldest first (masked ones are snippets). */
  outputs: readonly string[];
  readBackOutput?: string;
  /** Searches made so far; leave out to skip the search step. */
  searches?: number;
}): AgentStep {
  if (options.shellOutputs < options.shellSteps) {
    return {
      kind: 'shell',
      step: options.shellOutputs,
      command: bulkyCommand(options.shellOutputs),
    };
  }
  if (options.readBacks === 0) {
    const file = snippetFile(options.outputs);
    if (file) return { kind: 'read-back', file };
  }
  // `row 17` is a line of the first step's output only (SEARCHED_LINE).
  if (options.searches === 0) return { kind: 'search', query: `^${SEARCHED_LINE}$`, regex: true };
  const quoted =
    (options.readBackOutput ?? '').split('\n').find((line) => line.startsWith('row ')) ?? 'nothing';
  return { kind: 'answer', text: `${FINAL_PREFIX} read back "${quoted}"` };
}
