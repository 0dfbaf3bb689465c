/**
 * `@toolmask/gateway`: a local gateway between the stock `gemini` and `qwen` commands and their
 * model APIs that runs toolmask's masking pass on every request, offers the read-back tool over
 * MCP and records the provider's real usage. The `toolmask` command starts it (`toolmask
 * gateway`, `toolmask gemini`, `toolmask qwen`); docs/gateway.md.
 */
export {
  createGateway,
  DEFAULT_READ_TOOL_NAME,
  DEFAULT_RETENTION_DAYS,
  type Gateway,
  type GatewayOptions,
} from './gateway.js';
export {
  listenGateway,
  findRunningGateway,
  GatewayStartError,
  RUNNING_FILE,
  type ListenOptions,
  type RunningGateway,
  type RunningFile,
} from './listen.js';
export { DEFAULT_PORT, DEFAULT_DASHBOARD_PORT } from './defaults.js';
export { DEFAULT_UPSTREAMS, type UpstreamUrls } from './upstream/upstreams.js';
export type { UsageRecord, ClientKind, FrontKind, RequestSource } from './usage/usage-record.js';
export type { SessionsReport, SessionSummary } from './usage/sessions.js';
export type {
  ConversationStore,
  UsageStore,
  UsageQuery,
  DecisionRecord,
  ConversationMeta,
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
export { GATEWAY_VERSION } from './version.js';
export {
  createMaskingSettingsSource,
  type MaskingSettingsSource,
} from './settings/masking-settings.js';
export { defaultStateDir } from './launch/state-dir.js';
export { launchClient, type ClientSetup, type LaunchOptions } from './launch/launch-client.js';
export { LaunchError } from './launch/launch-error.js';
export {
  applySetup,
  undoSetup,
  type SetupClient,
  type SetupReport,
} from './launch/permanent-setup.js';
export {
  planQwenLaunch,
  prepareQwenLaunch,
  type QwenPlan,
  type QwenLaunch,
} from './launch/qwen-launch.js';
export {
  planGeminiLaunch,
  prepareGeminiLaunch,
  type GeminiPlan,
  type GeminiLaunch,
  type GeminiAuth,
} from './launch/gemini-launch.js';
