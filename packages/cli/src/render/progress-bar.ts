/**
 * A one-line progress bar on stderr, drawn only when stderr is a terminal and the run is long
 * enough to be worth it; redrawn at most every 100 ms and erased when done.
 */
import { formatInteger } from './format.js';

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

export interface ProgressBar {
  update(done: number, total: number): void;
  finish(): void;
}

const NO_PROGRESS: ProgressBar = { update() {}, finish() {} };

/** Below this many requests (summed over strategies) the run is quick: no bar. */
export const PROGRESS_MIN_REQUESTS = 300;

export function createProgressBar(
  stream: ProgressStream,
  total: number,
  clock: () => number = () => Date.now(),
): ProgressBar {
  if (stream.isTTY !== true || total < PROGRESS_MIN_REQUESTS) return NO_PROGRESS;
  let lastDraw = -Infinity;
  let drawn = false;
  return {
    update(done, all) {
      const now = clock();
      if (now - lastDraw < 100 && done < all) return;
      lastDraw = now;
      const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - 40));
      const filled = Math.round((done / all) * width);
      const percent = Math.floor((done / all) * 100);
      stream.write(
        `\r\u001b[2Kreplay [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${percent}% ` +
          `${formatInteger(done)}/${formatInteger(all)} requests`,
      );
      drawn = true;
    },
    finish() {
      if (drawn) stream.write('\r\u001b[2K');
    },
  };
}
