/**
 * The curated public surface of `@toolmask/gateway`: the entry exports exactly these names,
 * values and types, so that adding one is a decision (and this list and docs/gateway.md change
 * with it). What an embedder needs: create or listen, the launchers' wiring, the dashboard over
 * another source, and the stores' interfaces and types.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as gateway from './index.js';
import { readPublicSurface } from '@toolmask/test-support/public-surface';

const PUBLIC_RUNTIME_NAMES = [
  'ACCESS_SECRET_FILE',
  'CLIENT_MASKING_OFF_FLAGS',
  'DEFAULT_UPSTREAMS',
  'GATEWAY_VERSION',
  'GatewayStartError',
  'SESSION_HEADER',
  'TEAM_OUTPUTS_ROOT',
  'createGateway',
  'createMaskingSettingsSource',
  'findLaunchGateways',
  'findRunningGateway',
  'listenDashboard',
  'listenGateway',
  'loadAccessSecret',
  'openTeamKeys',
  'openTeamStores',
  'withoutCredentials',
];

const PUBLIC_TYPE_NAMES = [
  'ClientKind',
  'ConversationMeta',
  'ConversationStore',
  'DashboardSource',
  'DashboardStatus',
  'DecisionRecord',
  'Gateway',
  'GatewayOptions',
  'LaunchGateway',
  'ListenDashboardOptions',
  'ListenOptions',
  'MaskingSettingsSource',
  'OffloadedOutput',
  'OutputSlice',
  'ProtocolKind',
  'RequestSource',
  'RunningDashboard',
  'RunningFile',
  'RunningGateway',
  'SessionDetail',
  'SessionOutputs',
  'SessionSummary',
  'SessionsReport',
  'SettingValue',
  'SharedOutputStore',
  'SourceKind',
  'SourceStatus',
  'TeamOptions',
  'TeamStoreOptions',
  'TeamStores',
  'UpstreamUrls',
  'UsageFigures',
  'UsageQuery',
  'UsageRecord',
  'UsageStore',
  'UsageSummary',
  'VirtualKeyInfo',
  'VirtualKeys',
  'WireErrorCode',
];

describe('@toolmask/gateway', () => {
  const surface = readPublicSurface(fileURLToPath(new URL('./index.ts', import.meta.url)));

  it('exports exactly the curated names at runtime', () => {
    expect(Object.keys(gateway).sort()).toEqual([...PUBLIC_RUNTIME_NAMES].sort());
    expect(surface.values).toEqual([...PUBLIC_RUNTIME_NAMES].sort());
  });

  it('exports exactly the curated type names', () => {
    expect(surface.types).toEqual([...PUBLIC_TYPE_NAMES].sort());
  });
});
