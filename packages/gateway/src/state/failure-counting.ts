/**
 * A store whose failed calls are counted (`toolmask_gateway_store_failures_total{store,operation}`):
 * a team gateway's Redis or bucket that is down shows on the dashboards while the requests go on
 * without it. The store's behaviour is unchanged: a failure still rejects, for its caller to
 * handle.
 */
export type StoreName = 'conversations' | 'usage' | 'outputs' | 'keys';

export function countingFailures<T extends object>(
  store: T,
  name: StoreName,
  recordFailure: (store: StoreName, operation: string) => void,
): T {
  const counted: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(store)) {
    counted[key] =
      typeof value === 'function'
        ? (...args: unknown[]) =>
            (value as (...args: unknown[]) => Promise<unknown>)
              .apply(store, args)
              .catch((error: unknown) => {
                recordFailure(name, key);
                throw error;
              })
        : value;
  }
  return counted as T;
}
