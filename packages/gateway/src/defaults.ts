/**
 * `@toolmask/gateway/defaults`: the ports, for programs that declare their options before they
 * load the gateway itself (the `toolmask` command loads it only for the commands that run it).
 */
export const DEFAULT_PORT = 8787;
export const DEFAULT_DASHBOARD_PORT = 8788;
