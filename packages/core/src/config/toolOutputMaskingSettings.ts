/**
 * The `experimental.toolOutputMasking` settings, declared once: `SETTINGS` carries each key's
 * type, default, description and `toolmask replay` flag. Everything else comes from it: the types
 * (`ToolOutputMaskingSettings`, what a user may write; `ToolOutputMaskingConfig`, what the pass
 * reads, under the same names), the validator, the resolution of layers into a config, the CLI's
 * flags, and `docs/settings.md` / `docs/settings.schema.json` (scripts/generate-settings-docs.mjs,
 * checked in CI). Adding a setting is one entry here, plus the code that uses it.
 */
import { ToolmaskError } from '../utils/toolmaskError.js';
import { isPlainObject } from '../utils/safeCall.js';
import {
  expectedSettingValue,
  isValidSettingValue,
  type SettingDeclaration,
  type SettingType,
  type SettingValue,
} from './settingTypes.js';

export {
  expectedSettingValue,
  isValidSettingValue,
  type SettingDeclaration,
  type SettingType,
  type SettingValue,
} from './settingTypes.js';

/** Tools whose outputs the agent needs verbatim for the rest of the session. Never counted, never masked. */
export const BUILT_IN_EXEMPT_TOOLS: readonly string[] = [
  'activate_skill',
  'save_memory',
  'ask_user',
  'enter_plan_mode',
  'exit_plan_mode',
  'skill',
  'memory',
  'ask_user_question',
  // Our own read-back tool: masking what the agent just read back would loop.
  'read_tool_output',
];

export const SETTINGS_PATH = 'experimental.toolOutputMasking';

/**
 * The share of the model's context window a single output may take before the guard offloads it
 * (`maxOutputTokens` when the user did not set it). A quarter leaves room for the rest of the
 * history, the system prompt and the answer, however many turns follow.
 */
export const MAX_OUTPUT_CONTEXT_SHARE = 0.25;

/** Core's `DEFAULT_TOKEN_LIMIT`, also the window of every current Gemini model: 1,048,576 tokens. */
export const DEFAULT_CONTEXT_WINDOW_TOKENS = 1_048_576;

/**
 * The default of `maxOutputTokens` for a model with this context window (core's `tokenLimit(model)`):
 * a quarter of it, rounded down. Without a usable window, a quarter of core's default window.
 */
export function defaultMaxOutputTokens(contextWindowTokens?: number): number {
  const window =
    typeof contextWindowTokens === 'number' &&
    Number.isFinite(contextWindowTokens) &&
    contextWindowTokens > 0
      ? contextWindowTokens
      : DEFAULT_CONTEXT_WINDOW_TOKENS;
  return Math.floor(window * MAX_OUTPUT_CONTEXT_SHARE);
}

const declare = <T extends SettingType, const V extends string = string>(
  declaration: SettingDeclaration<T, V>,
) => declaration;

/** Every setting, in the order the docs list them. */
export const SETTINGS = {
  enabled: declare({
    type: 'boolean',
    default: true,
    description: 'Turns the masking pass on or off.',
  }),
  toolProtectionThreshold: declare({
    type: 'non-negative integer',
    default: 50_000,
    description:
      'Estimated tokens of the newest tool outputs that are never masked while the prompt cache is warm (at a cold-cache moment, coldCacheProtectionThreshold applies when it is smaller). The output that crosses this line and every older one are prunable.',
    flag: {
      name: 'protection-threshold',
      argument: 'tokens',
      help: 'toolmask: newest tool tokens never masked',
    },
  }),
  coldCacheProtectionThreshold: declare({
    type: 'non-negative integer',
    default: 30_000,
    description:
      'At a cold-cache moment (a new prompt after an idle gap, or a host that knows the prompt cache is cold), estimated tokens of the newest tool outputs kept whole; every older output is masked then, below minPrunableTokensThreshold too, as a cache break costs nothing at that moment. Capped at toolProtectionThreshold, which alone decides every other pass; set it to toolProtectionThreshold or more to keep one window at all times.',
    flag: {
      name: 'cold-protection-threshold',
      argument: 'tokens',
      help: 'toolmask: newest tool tokens kept whole at a cold-cache moment',
    },
  }),
  minPrunableTokensThreshold: declare({
    type: 'non-negative integer',
    default: 30_000,
    description:
      'A pass masks only when at least this many tokens are prunable, so each prompt-cache break frees a lot.',
    flag: {
      name: 'min-prunable',
      argument: 'tokens',
      help: 'toolmask: mask only when this many tokens are prunable',
    },
  }),
  protectLatestTurn: declare({
    type: 'boolean',
    default: true,
    description: 'Never mask outputs in the newest history entry.',
    flag: { name: 'protect-latest-turn', help: 'toolmask: never mask the newest history entry' },
  }),
  exemptTools: declare({
    type: 'array of strings',
    default: [],
    description: `Extra tool names whose outputs are never masked and never counted (added to the built-in list: ${BUILT_IN_EXEMPT_TOOLS.join(', ')}).`,
    flag: {
      name: 'exempt-tools',
      argument: 'names',
      help: 'toolmask: comma-separated extra tools never masked',
    },
  }),
  maxOutputTokens: declare({
    type: 'non-negative integer',
    default: defaultMaxOutputTokens(),
    derivedDefault: "a quarter of the model's context window",
    description:
      "A single output estimated above this many tokens is offloaded and previewed at once, even when it is the newest one or in the request being sent, so one giant output cannot overflow the context window. Unset, it is a quarter of the active model's context window (262144 for the 1,048,576-token Gemini models, and when no model is known). 0 turns the guard off.",
    flag: {
      name: 'max-output-tokens',
      argument: 'tokens',
      help: 'toolmask: offload any single output above this (0 = off)',
    },
  }),
  warmRule: declare({
    type: 'one of',
    values: ['pay-back', 'floor'],
    default: 'pay-back',
    description:
      "When a pass may break a warm prompt cache. `pay-back`: only for a batch of at least minPrunableTokensThreshold whose saving over the requests the session is likely still to make (as many as it has made) exceeds what re-writing the cache costs, so a short session never bills more than without masking; when the prompt reaches three quarters of the context window, whatever is maskable is masked for room. `floor`: any batch of minPrunableTokensThreshold (scaled by the provider's cache-write premium), however late in the session.",
    flag: {
      name: 'warm-rule',
      argument: 'rule',
      help: 'toolmask: when a warm cache may be broken: pay-back or floor',
    },
  }),
  retentionDays: declare({
    type: 'non-negative integer',
    default: 30,
    description:
      'Session folders of offloaded outputs not used (no write, no read-back) for this many days are removed in the background at install time, never while their session runs. 0 keeps them forever.',
  }),
  allowOtherSessions: declare({
    type: 'boolean',
    default: false,
    description:
      "Lets the read_tool_output tool open offloaded outputs of the project's other sessions.",
  }),
};

export type SettingKey = keyof typeof SETTINGS;

/** Every key, in declaration order. */
export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];

/** A `one of` setting's allowed values; `string` for the other types. */
type ValuesOfKey<K extends SettingKey> = (typeof SETTINGS)[K] extends {
  values?: readonly (infer V extends string)[];
}
  ? V
  : string;

type ValueOfKey<K extends SettingKey> = SettingValue<(typeof SETTINGS)[K]['type'], ValuesOfKey<K>>;

/** What a user may write under `experimental.toolOutputMasking` (every key optional). */
export type ToolOutputMaskingSettings = { [K in SettingKey]?: ValueOfKey<K> };

/**
 * The resolved configuration the masking pass reads: every key set, under the same names.
 * `exemptTools` holds the built-in exempt tools plus the user's.
 */
export type ToolOutputMaskingConfig = { [K in SettingKey]: ValueOfKey<K> };

/**
 * A settings value of the wrong type: names the key, the expected type and (when known) the file.
 * Code `INVALID_SETTING`.
 */
export class ToolOutputMaskingSettingsError extends ToolmaskError<'INVALID_SETTING'> {
  constructor(
    readonly key: string,
    readonly expected: string,
    readonly received: unknown,
    readonly source?: string,
    /** Where the keys are: `SETTINGS_PATH`, or `''` at a file's top level (a `toolmask.json`). */
    keysAt: string = SETTINGS_PATH,
  ) {
    const where = source ? ` in ${source}` : '';
    const dotted = [keysAt, key].filter(Boolean).join('.') || 'the top level';
    super(
      'INVALID_SETTING',
      `Invalid setting ${dotted}${where}: expected ${expected}, got ${describeValue(received)}.`,
    );
  }
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Checks a raw settings block. Throws `ToolOutputMaskingSettingsError` on the first bad key;
 * unknown keys are ignored (a newer settings file must not break an older toolmask). `keysAt`:
 * where the block is, for the message (`''`: a file's top level).
 */
export function validateToolOutputMaskingSettings(
  raw: unknown,
  source?: string,
  keysAt: string = SETTINGS_PATH,
): ToolOutputMaskingSettings {
  if (raw === undefined) return {};
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ToolOutputMaskingSettingsError('', 'an object', raw, source, keysAt);
  }
  const block = raw as Record<string, unknown>;
  const settings: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const value = block[key];
    if (value === undefined) continue;
    const declaration: SettingDeclaration = SETTINGS[key];
    if (!isValidSettingValue(declaration.type, value, declaration.values)) {
      throw new ToolOutputMaskingSettingsError(
        key,
        expectedSettingValue(declaration),
        value,
        source,
        keysAt,
      );
    }
    settings[key] = value;
  }
  return settings as ToolOutputMaskingSettings;
}

/**
 * The block's valid keys, and an error for each bad one (a bad value drops its key, not the
 * block); one error without a key when the block is no object.
 */
export function validSettingKeys(
  block: unknown,
  file: string,
  keysAt: string = SETTINGS_PATH,
): { settings: ToolOutputMaskingSettings; bad: ToolOutputMaskingSettingsError[] } {
  const bad: ToolOutputMaskingSettingsError[] = [];
  let rest: unknown = block;
  for (;;) {
    try {
      return { settings: validateToolOutputMaskingSettings(rest, file, keysAt), bad };
    } catch (error) {
      if (!(error instanceof ToolOutputMaskingSettingsError)) throw error;
      bad.push(error);
      if (!error.key || !isPlainObject(rest)) return { settings: {}, bad };
      const { [error.key]: _dropped, ...others } = rest;
      rest = others;
    }
  }
}

/** Fills every unset key with its declared default. Later layers win over earlier ones. */
export function resolveToolOutputMaskingConfig(
  ...layers: readonly ToolOutputMaskingSettings[]
): ToolOutputMaskingConfig {
  const merged: ToolOutputMaskingSettings = Object.assign({}, ...layers);
  const config = Object.fromEntries(
    SETTING_KEYS.map((key) => [key, merged[key] ?? SETTINGS[key].default]),
  ) as ToolOutputMaskingConfig;
  config.exemptTools = [...new Set([...BUILT_IN_EXEMPT_TOOLS, ...config.exemptTools])];
  return config;
}

/**
 * Like `resolveToolOutputMaskingConfig`, for a model with a known context window: when no layer
 * sets `maxOutputTokens`, it is derived from the window (`defaultMaxOutputTokens`). An explicit
 * value, 0 included, always wins.
 */
export function resolveToolOutputMaskingConfigForModel(
  contextWindowTokens: number | undefined,
  ...layers: readonly ToolOutputMaskingSettings[]
): ToolOutputMaskingConfig {
  const config = resolveToolOutputMaskingConfig(...layers);
  if (layers.every((layer) => layer.maxOutputTokens === undefined)) {
    config.maxOutputTokens = defaultMaxOutputTokens(contextWindowTokens);
  }
  return config;
}

/** The defaults, as one resolved config. */
export const DEFAULT_TOOL_OUTPUT_MASKING_CONFIG: Readonly<ToolOutputMaskingConfig> =
  resolveToolOutputMaskingConfig();
