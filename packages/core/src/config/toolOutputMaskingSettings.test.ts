import { describe, expect, it } from 'vitest';
import {
  BUILT_IN_EXEMPT_TOOLS,
  DEFAULT_TOOL_OUTPUT_MASKING_CONFIG,
  ToolOutputMaskingSettingsError,
  defaultMaxOutputTokens,
  resolveToolOutputMaskingConfig,
  resolveToolOutputMaskingConfigForModel,
  validateToolOutputMaskingSettings,
} from './toolOutputMaskingSettings.js';

describe('validateToolOutputMaskingSettings', () => {
  it('accepts a full, valid block', () => {
    const block = {
      enabled: false,
      toolProtectionThreshold: 1000,
      minPrunableTokensThreshold: 0,
      protectLatestTurn: false,
      exemptTools: ['my_tool'],
      warmRule: 'pay-back',
    };
    expect(validateToolOutputMaskingSettings(block)).toEqual(block);
  });

  it('ignores unknown keys and treats undefined as empty', () => {
    expect(validateToolOutputMaskingSettings({ somethingNew: 1 })).toEqual({});
    expect(validateToolOutputMaskingSettings(undefined)).toEqual({});
  });

  it.each([
    ['enabled', 'yes', 'boolean'],
    ['toolProtectionThreshold', -1, 'non-negative integer'],
    ['toolProtectionThreshold', '50000', 'non-negative integer'],
    ['minPrunableTokensThreshold', 1.5, 'non-negative integer'],
    ['protectLatestTurn', 1, 'boolean'],
    ['exemptTools', 'skill', 'array of strings'],
    ['exemptTools', ['ok', 3], 'array of strings'],
    ['warmRule', 'payback', 'one of "pay-back", "floor"'],
    ['warmRule', 1, 'one of "pay-back", "floor"'],
  ])('rejects %s = %j naming the key and the expected type', (key, value, expected) => {
    let caught: unknown;
    try {
      validateToolOutputMaskingSettings({ [key]: value }, '/home/me/.gemini/settings.json');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ToolOutputMaskingSettingsError);
    const error = caught as ToolOutputMaskingSettingsError;
    expect(error.key).toBe(key);
    expect(error.message).toContain(`experimental.toolOutputMasking.${key}`);
    expect(error.message).toContain(`expected ${expected}`);
    expect(error.message).toContain('/home/me/.gemini/settings.json');
  });

  it('rejects a block that is not an object', () => {
    expect(() => validateToolOutputMaskingSettings([1, 2])).toThrow(
      /expected an object, got an array/,
    );
  });
});

describe('resolveToolOutputMaskingConfig', () => {
  it('fills the documented defaults', () => {
    expect(DEFAULT_TOOL_OUTPUT_MASKING_CONFIG).toMatchObject({
      enabled: true,
      toolProtectionThreshold: 50_000,
      minPrunableTokensThreshold: 30_000,
      protectLatestTurn: true,
    });
    for (const tool of [
      'activate_skill',
      'save_memory',
      'ask_user',
      'enter_plan_mode',
      'exit_plan_mode',
      'skill',
      'memory',
      'ask_user_question',
    ]) {
      expect(DEFAULT_TOOL_OUTPUT_MASKING_CONFIG.exemptTools).toContain(tool);
    }
  });

  it('lets later layers win and adds user exempt tools to the built-in ones', () => {
    const config = resolveToolOutputMaskingConfig(
      { toolProtectionThreshold: 10, exemptTools: ['a'] },
      { toolProtectionThreshold: 20, protectLatestTurn: false },
    );
    expect(config.toolProtectionThreshold).toBe(20);
    expect(config.protectLatestTurn).toBe(false);
    expect(config.exemptTools).toEqual([...BUILT_IN_EXEMPT_TOOLS, 'a']);
  });
});

describe('maxOutputTokens derived from the context window', () => {
  it('is a quarter of the window; a quarter of 1,048,576 tokens when the window is unknown', () => {
    expect(defaultMaxOutputTokens(1_048_576)).toBe(262_144);
    expect(defaultMaxOutputTokens(256_000)).toBe(64_000);
    for (const unknown of [undefined, 0, -1, Number.NaN, Infinity]) {
      expect(defaultMaxOutputTokens(unknown)).toBe(262_144);
    }
    expect(DEFAULT_TOOL_OUTPUT_MASKING_CONFIG.maxOutputTokens).toBe(262_144);
  });

  it('follows the model unless a layer sets it; an explicit value, 0 included, wins', () => {
    expect(resolveToolOutputMaskingConfigForModel(256_000).maxOutputTokens).toBe(64_000);
    expect(resolveToolOutputMaskingConfigForModel(undefined).maxOutputTokens).toBe(262_144);
    expect(
      resolveToolOutputMaskingConfigForModel(256_000, { toolProtectionThreshold: 5 }, {}),
    ).toMatchObject({ maxOutputTokens: 64_000, toolProtectionThreshold: 5 });
    expect(
      resolveToolOutputMaskingConfigForModel(256_000, { maxOutputTokens: 9_000 }, {})
        .maxOutputTokens,
    ).toBe(9_000);
    expect(
      resolveToolOutputMaskingConfigForModel(256_000, {}, { maxOutputTokens: 0 }).maxOutputTokens,
    ).toBe(0);
  });
});
