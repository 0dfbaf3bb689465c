/** Tiny contents for engine tests; token count = characters of text and outputs. */
import type { Content, ReplayTask } from '../replay/types.js';

export const countCharacters = (content: Content): number =>
  (content.parts ?? []).reduce((sum, part) => {
    const output = (part.functionResponse?.response as { output?: string } | undefined)?.output;
    return sum + (part.text?.length ?? output?.length ?? 0);
  }, 0);

export const text = (role: 'user' | 'model', value: string): Content => ({
  role,
  parts: [{ text: value }],
});

export const toolResponse = (id: string, output: string): Content => ({
  role: 'user',
  parts: [{ functionResponse: { id, name: 'run_shell_command', response: { output } } }],
});

/** user 4, model 2, tool 10, model 2, tool 20, model 2 (tokens). */
export function smallTask(label = 'task'): ReplayTask {
  return {
    label,
    contents: [
      text('user', 'aaaa'),
      text('model', 'bb'),
      toolResponse('call-1', 'x'.repeat(10)),
      text('model', 'cc'),
      toolResponse('call-2', 'y'.repeat(20)),
      text('model', 'dd'),
    ],
  };
}
