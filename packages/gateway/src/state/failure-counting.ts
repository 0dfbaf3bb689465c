/**
 * A store whose failed calls are counted (`toolmask_gateway_store_failures_total{store,operation}`):
 * a team gateway's Redis or bucket that is down shows on the dashboards while the requests go on
 * without it. The store's behaviour is unchanged: a failure still rejects, for its caller to
 * handle, and every other property reads through.
 *
 * A proxy, so that a store that is a class instance (its methods on its prototype) is counted as
 * well as a plain object; each method is wrapped once.
 */
export type StoreName = 'conversations' | 'usage' | 'outputs' | 'keys';

export function countingFailures<T extends object>(
  store: T,
  name: StoreName,
  recordFailure: (store: StoreName, operation: string) => void,
): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function' || typeof key !== 'string') return value;
      let counted = wrapped.get(key);
      if (!counted) {
        counted = (...args: unknown[]) =>
          (value as (...args: unknown[]) => Promise<unknown>)
            .apply(target, args)
            .catch((error: unknown) => {
              recordFailure(name, key);
              throw error;
            });
        wrapped.set(key, counted);
      }
      return counted;
    },
  });
}
