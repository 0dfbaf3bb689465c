/** Tiny contents for engine tests; token count = characters of text and outputs. */
import type { Content, ReplaySession, ReplayStrategy, ReplayTask } from '../replay/types.js';

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

/** A session of the given tasks (contents), labelled t0, t1, ... */
export function sessionOf(...tasks: Content[][]): ReplaySession {
  return {
    id: 's',
    label: 's',
    tasks: tasks.map((contents, index) => ({ label: `t${index}`, contents })),
  };
}

/**
 * A fake strategy that masks the first tool output (content 2) into `m` at the third request
 * (with `whenCold`, also at any earlier cold request that has it), and records the cold flags.
 */
export function maskFirstOutput(
  coldFlags: boolean[],
  options: { whenCold?: boolean } = {},
): ReplayStrategy {
  return {
    name: 'fake',
    startSession() {
      let calls = 0;
      return {
        async mask(history, pending, request) {
          coldFlags.push(request.cacheLikelyCold);
          const contents: Content[] = [...history, pending];
          calls++;
          const due =
            calls === 3 ||
            (options.whenCold === true && request.cacheLikelyCold && contents.length > 2);
          const output = contents[2]?.parts?.[0]?.functionResponse?.response?.['output'];
          if (!due || output === 'm') {
            return { contents, maskedCount: 0, offloadedBytes: 0, failures: 0 };
          }
          contents[2] = toolResponse('call-1', 'm');
          return { contents, maskedCount: 1, offloadedBytes: 10, failures: 0, notice: 'masked 1' };
        },
      };
    },
  };
}
