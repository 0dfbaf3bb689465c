/**
 * gemini's command line as `toolmask gemini` handles it: everything after toolmask's options goes
 * to gemini as it is (no flag of gemini's is read or rewritten: its settings and environment say
 * where it sends its requests), and the launcher's one option of gemini's own.
 */
import type { LauncherOption } from '../client-adapter.js';

export const GEMINI_OPTIONS: readonly LauncherOption[] = [
  {
    flags: '--keep-client-masking',
    description:
      "leave gemini's own masking on as well (API key and Vertex AI; for measuring the two together)",
  },
];

/** `--keep-client-masking`: gemini's own masking stays on for the run. */
export function keepsClientMasking(options: Readonly<Record<string, unknown>>): boolean {
  return options['keepClientMasking'] === true;
}
