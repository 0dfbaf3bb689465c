/**
 * A fake Gemini model that calls the shell `calls` times (`make <step>`, call ids `call-<step>`),
 * then answers with text; its usage plays a prefix cache, so tests can count cache hits. The
 * step is read from the history's length, so any gateway in front of it (or several) sees the
 * same model.
 */
import {
  PrefixCache,
  geminiAnswer,
  startFakeUpstream,
  type FakeUpstream,
} from '@toolmask/test-support/fake-upstream';

export function scriptedShellUpstream(calls: number): Promise<FakeUpstream> {
  const cache = new PrefixCache();
  return startFakeUpstream((request) => {
    const contents = ((request.json as { contents?: unknown[] })?.contents ?? []) as unknown[];
    const usage = cache.usage('conversation', contents);
    const step = Math.floor(contents.length / 2);
    if (step >= calls) return geminiAnswer([{ text: 'All done.' }], usage);
    return geminiAnswer(
      [
        { text: `step ${step}` },
        {
          functionCall: {
            id: `call-${step}`,
            name: 'run_shell_command',
            args: { command: `make ${step}` },
          },
        },
      ],
      usage,
    );
  });
}
