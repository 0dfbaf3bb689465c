/**
 * The curated public surface of `@toolmask/core`: the main entry exports exactly these names,
 * values and types, so that adding one is a decision (and this list, the docs and the changelog
 * change with it).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as core from './index.js';
import { readPublicSurface } from '@toolmask/test-support/public-surface';

const PUBLIC_RUNTIME_NAMES = [
  'CACHE_ECONOMICS',
  'DEFAULT_IDLE_GAP_MS',
  'EVENT_TOOL_OUTPUT_MASKING',
  'READ_TOOL_OUTPUT_TOOL_NAME',
  'SETTINGS',
  'ToolOutputMaskingEvent',
  'ToolOutputMaskingService',
  'ToolOutputMaskingSettingsError',
  'ToolOutputReadError',
  'coreMaskingOffParameters',
  'createMaskingMiddleware',
  'estimateTokenCountSync',
  'getToolOutputMaskingInstallation',
  'installToolOutputMasking',
  'isReadBackTool',
  'parseMaskedSnippet',
  'readToolOutput',
  'resolveToolOutputMaskingConfig',
  'searchToolNameBeside',
  'validateToolOutputMaskingSettings',
];

const PUBLIC_TYPE_NAMES = [
  'CacheEconomics',
  'Content',
  'InstallToolOutputMaskingOptions',
  'MaskOptions',
  'MaskedRequest',
  'MaskingFailure',
  'MaskingHost',
  'MaskingMiddleware',
  'MaskingMiddlewareOptions',
  'MaskingPass',
  'MaskingRequest',
  'MaskingResult',
  'MaskingTuning',
  'OffloadedOutput',
  'ParsedMaskedSnippet',
  'Part',
  'PartLocation',
  'ReadToolOutputParams',
  'ReadToolOutputResult',
  'ToolOutputAccess',
  'ToolOutputMaskingConfig',
  'ToolOutputMaskingEventFields',
  'ToolOutputMaskingInstallation',
  'ToolOutputMaskingServiceDeps',
  'ToolOutputMaskingSettings',
  'ToolOutputReadErrorCode',
];

describe('@toolmask/core', () => {
  const surface = readPublicSurface(fileURLToPath(new URL('./index.ts', import.meta.url)));

  it('exports exactly the curated names at runtime', () => {
    expect(Object.keys(core).sort()).toEqual([...PUBLIC_RUNTIME_NAMES].sort());
    expect(surface.values).toEqual([...PUBLIC_RUNTIME_NAMES].sort());
  });

  it('exports exactly the curated type names', () => {
    expect(surface.types).toEqual([...PUBLIC_TYPE_NAMES].sort());
  });
});
