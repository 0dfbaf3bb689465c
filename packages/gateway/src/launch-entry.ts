/**
 * `@toolmask/gateway/launch`: what a launcher needs before the gateway itself is loaded (and
 * without loading it): the gateway running for a state folder, its access secret, and a port
 * bound early (`listenGateway({ listener })` takes it over once loaded); the constants a client's
 * launch and setup write into its configuration.
 */
export { findRunningGateway, type RunningFile } from './running-gateway.js';
export { loadAccessSecret } from './state/access-secret.js';
export { bindEarlyListener, type EarlyListener } from './server/early-listener.js';
export { CLIENT_SESSION_HEADER, SESSION_HEADER } from './protocols/session-signal.js';
export { CLIENT_MASKING_OFF_FLAGS } from './protocols/gemini/client-masking.js';
export { DEFAULT_UPSTREAMS, withoutCredentials, type UpstreamUrls } from './upstream/upstreams.js';
export { ACCESS_SECRET_FILE } from './state/access-secret.js';
