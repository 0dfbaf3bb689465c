/**
 * The curated public surface of `@toolmask/core`: the main entry exports exactly these names,
 * so that adding one is a decision (and this list, the docs and the changelog change with it).
 */
import { describe, expect, it } from 'vitest';
import * as core from './index.js';

const PUBLIC_RUNTIME_NAMES = [
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
  'parseMaskedSnippet',
  'readToolOutput',
  'resolveToolOutputMaskingConfig',
  'validateToolOutputMaskingSettings',
];

describe('@toolmask/core', () => {
  it('exports exactly the curated names', () => {
    expect(Object.keys(core).sort()).toEqual([...PUBLIC_RUNTIME_NAMES].sort());
  });
});
