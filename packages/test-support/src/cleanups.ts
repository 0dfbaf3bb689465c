/** Things a test set up and must take down, in reverse order, after each test of the file. */
import { afterEach } from 'vitest';

export function cleanUpAfterEach(): Array<() => Promise<void>> {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return cleanups;
}
