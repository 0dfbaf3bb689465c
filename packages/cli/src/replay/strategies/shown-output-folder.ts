/**
 * Where a replayed strategy's outputs are said to be versus where they really are.
 *
 * A snippet carries the path of its full output, and that path is counted in every later request.
 * If it named the real scratch folder (random per run) or the `--keep` folder (chosen by the
 * person), the figures would change from run to run and from folder to folder. So a replay's
 * strategies see one fixed project temp dir, `/toolmask-replay/<strategy>`, that exists nowhere;
 * the files are written to the real folder by mapping that prefix at the edge (the store here,
 * the file calls in gemini-cli-sandbox.ts).
 */
import * as path from 'node:path';
import type { ToolOutputStore } from '@toolmask/core/storage';

/** The folder the replay's snippets and notices name for a strategy's project temp dir. */
export function shownProjectTempDir(strategyName: string): string {
  return path.resolve('/toolmask-replay', strategyName);
}

/** Maps paths under `shown` to the same place under `real`; other paths give undefined. */
export function createPathMapper(
  shown: string,
  real: string,
): (file: string) => string | undefined {
  const shownRoot = path.resolve(shown);
  const realRoot = path.resolve(real);
  return (file) => {
    const relative = path.relative(shownRoot, path.resolve(file));
    if (relative === '') return realRoot;
    if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
    return path.join(realRoot, relative);
  };
}

/**
 * A store that is told folders under `shown` and writes them under `real`, answering with the
 * shown path (the one the snippet names). A folder outside `shown` is refused.
 */
export function createRelocatedStore(
  inner: ToolOutputStore,
  shown: string,
  real: string,
): ToolOutputStore {
  const toReal = createPathMapper(shown, real);
  return {
    async save(directory, fileName, text) {
      const realDirectory = toReal(directory);
      if (realDirectory === undefined) {
        throw new Error(`${directory} is outside the replay's output folder ${shown}`);
      }
      await inner.save(realDirectory, fileName, text);
      return path.resolve(directory, fileName);
    },
  };
}
