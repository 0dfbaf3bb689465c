/**
 * The environment a client runs in, and what every launcher adds to it so that requests to the
 * loopback gateway never go through a proxy the person has set: `127.0.0.1` and `localhost` in
 * `NO_PROXY` and `no_proxy` (clients read one or the other), after what is already there.
 */

/** Environment variables as a client gets them (a value may be unset). */
export type Environment = Record<string, string | undefined>;

/** `value`, a `separator` list, with `items` added at the end where missing. */
export function appendList(
  value: string | undefined,
  items: readonly string[],
  separator = ',',
): string {
  const existing = (value ?? '')
    .split(separator)
    .map((item) => item.trim())
    .filter(Boolean);
  return [...existing, ...items.filter((item) => !existing.includes(item))].join(separator);
}

/** `NO_PROXY` and `no_proxy` of `env` with the loopback names added. */
export function loopbackNoProxy(env: Environment): { NO_PROXY: string; no_proxy: string } {
  const loopback = ['127.0.0.1', 'localhost'];
  return {
    NO_PROXY: appendList(env['NO_PROXY'], loopback),
    no_proxy: appendList(env['no_proxy'], loopback),
  };
}
