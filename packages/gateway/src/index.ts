/**
 * `@toolmask/gateway`: a local gateway between agent CLIs and their model APIs that runs
 * toolmask's masking pass on every request, offers the read-back tool over MCP and records the
 * provider's real usage. The `toolmask` command starts it (`toolmask gateway`, `toolmask gemini`,
 * `toolmask qwen`); docs/gateway.md.
 *
 * The curated surface for an embedder: create or listen, the launchers' wiring (the session header,
 * the client flags, a running gateway of a state folder), the dashboard over another source, and
 * the stores' interfaces and types. src/publicApi.test.ts pins it.
 */
export { createGateway } from './gateway.js';
export type { Gateway, GatewayOptions, TeamOptions } from './gateway-options.js';
export {
  openTeamStores,
  openTeamKeys,
  TEAM_OUTPUTS_ROOT,
  type TeamStores,
  type TeamStoreOptions,
} from './state/team-stores.js';
export type { VirtualKeys, VirtualKeyInfo } from './state/redis/redis-virtual-keys.js';
export { listenGateway, type ListenOptions, type RunningGateway } from './listen-gateway.js';
export {
  findLaunchGateways,
  findRunningGateway,
  type LaunchGateway,
  type RunningFile,
} from './running-gateway.js';
export { ACCESS_SECRET_FILE, loadAccessSecret } from './state/access-secret.js';
export { GatewayStartError, type WireErrorCode } from './errors.js';
export { DEFAULT_UPSTREAMS, withoutCredentials, type UpstreamUrls } from './upstream/upstreams.js';
export { SESSION_HEADER } from './protocols/session-signal.js';
export { CLIENT_MASKING_OFF_FLAGS } from './protocols/gemini/client-masking.js';
export type { ProtocolKind } from './protocols/protocol.js';
export {
  createMaskingSettingsSource,
  type MaskingSettingsSource,
} from './pipeline/masking-settings.js';
export type { UsageRecord, ClientKind, RequestSource } from './usage/usage-record.js';
export type { SessionsReport, SessionSummary } from './usage/sessions.js';
export type {
  ConversationStore,
  UsageStore,
  UsageQuery,
  DecisionRecord,
  ConversationMeta,
  SharedOutputStore,
} from './state/stores.js';
export {
  listenDashboard,
  type ListenDashboardOptions,
  type RunningDashboard,
} from './dashboard/listen-dashboard.js';
export type { DashboardSource, SourceStatus } from './dashboard/dashboard-source.js';
export type {
  DashboardStatus,
  OffloadedOutput,
  OutputSlice,
  SessionDetail,
  SessionOutputs,
  SettingValue,
  SourceKind,
} from './dashboard/api-types.js';
export type { UsageFigures, UsageSummary } from './usage/usage-tally.js';
export { GATEWAY_VERSION } from './version.js';
