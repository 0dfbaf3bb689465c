/**
 * The long example session shipped in the package (`examples/long-session.json`), generated
 * deterministically by `scripts/generate-example.mjs`. Replayed when no PATH is given.
 */
import { fileURLToPath } from 'node:url';

/** Same relative place from `src/input/` and `dist/input/`. */
export const BUILTIN_EXAMPLE_PATH = fileURLToPath(
  new URL('../../examples/long-session.json', import.meta.url),
);
