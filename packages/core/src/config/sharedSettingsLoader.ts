/**
 * The settings files' layers for each request, shared and bounded in time:
 * - one read at a time, shared by overlapping callers (a request, the retention run, the
 *   read-back tool), so a broken file is read, and reported, once;
 * - a turn waits at most `waitMs` (`SETTINGS_READ_WAIT_MS`): a read that has not finished by then
 *   (a hung network mount) goes on in the background and the turn uses the layers read last;
 *   later turns do not wait for it again;
 * - once that read ends, the next turn reads afresh, so a fixed file is picked up.
 *
 * Generic over what a read yields (settingsFile.ts's `SettingsLayer`), so this module imports
 * nothing of the files it serves.
 */

/** How long a turn waits for the settings files. */
export const SETTINGS_READ_WAIT_MS = 2_000;

export function sharedSettingsLoader<Layer>(
  load: () => Promise<Layer[]>,
  waitMs = SETTINGS_READ_WAIT_MS,
): () => Promise<Layer[]> {
  let loading: Promise<Layer[]> | undefined;
  let overdue = false;
  let last: Layer[] = [];
  return async () => {
    if (!loading) {
      overdue = false;
      const current = load().then(
        (layers) => (last = layers),
        () => last,
      );
      loading = current;
      void current.then(() => {
        if (loading === current) loading = undefined;
      });
    }
    if (overdue) return last;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<Layer[]>((resolve) => {
      timer = setTimeout(() => {
        overdue = true;
        resolve(last);
      }, waitMs);
    });
    try {
      return await Promise.race([loading, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
}
