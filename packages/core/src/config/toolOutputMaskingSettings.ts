/**
 * The `experimental.toolOutputMasking` settings block: declared once here (type, default,
 * description), validated here, and resolved here into the `ToolOutputMaskingConfig` the pass reads.
 * `docs/settings.md` is generated from `SETTING_DECLARATIONS` (scripts/generate-settings-docs.mjs)
 * and checked in CI, so docs and code cannot drift.
 */

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

/** What a user may write under `experimental.toolOutputMasking` (every key optional). */
export interface ToolOutputMaskingSettings {
  enabled?: boolean;
  toolProtectionThreshold?: number;
  minPrunableTokensThreshold?: number;
  protectLatestTurn?: boolean;
  exemptTools?: string[];
  maxOutputTokens?: number;
  retentionDays?: number;
  allowOtherSessions?: boolean;
}

/** The resolved configuration the masking pass reads; every field is set. */
export interface ToolOutputMaskingConfig {
  enabled: boolean;
  /** Newest tool-output tokens that are never masked. */
  protectionThresholdTokens: number;
  /** A pass runs only when at least this many tokens are prunable (batching keeps cache breaks rare). */
  minPrunableThresholdTokens: number;
  /** Never mask anything in the last history entry. */
  protectLatestTurn: boolean;
  /** Built-in exempt tools plus the user's `exemptTools`. */
  exemptTools: readonly string[];
  /** A single output above this is offloaded at once, even when it is the newest. 0 = off. */
  maxOutputTokens: number;
  /** Session output folders older than this many days are removed at install time. 0 = keep forever. */
  retentionDays: number;
  /** Whether the read-back tool may open outputs of other sessions of the same project. */
  allowOtherSessions: boolean;
}

type SettingType = 'boolean' | 'non-negative integer' | 'array of strings';

export interface SettingDeclaration {
  key: keyof ToolOutputMaskingSettings;
  type: SettingType;
  /** The value used when nothing else is known (for a derived default: its value for core's default model). */
  default: boolean | number | readonly string[];
  /** Set when a host derives the default from its model: how (shown in docs/settings.md). */
  derivedDefault?: string;
  description: string;
}

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

export const SETTINGS_PATH = 'experimental.toolOutputMasking';

export const SETTING_DECLARATIONS: readonly SettingDeclaration[] = [
  {
    key: 'enabled',
    type: 'boolean',
    default: true,
    description: 'Turns the masking pass on or off.',
  },
  {
    key: 'toolProtectionThreshold',
    type: 'non-negative integer',
    default: 50_000,
    description:
      'Estimated tokens of the newest tool outputs that are never masked. The output that crosses this line and every older one are prunable.',
  },
  {
    key: 'minPrunableTokensThreshold',
    type: 'non-negative integer',
    default: 30_000,
    description:
      'A pass masks only when at least this many tokens are prunable, so each prompt-cache break frees a lot.',
  },
  {
    key: 'protectLatestTurn',
    type: 'boolean',
    default: true,
    description: 'Never mask outputs in the newest history entry.',
  },
  {
    key: 'exemptTools',
    type: 'array of strings',
    default: [],
    description: `Extra tool names whose outputs are never masked and never counted (added to the built-in list: ${BUILT_IN_EXEMPT_TOOLS.join(', ')}).`,
  },
  {
    key: 'maxOutputTokens',
    type: 'non-negative integer',
    default: defaultMaxOutputTokens(),
    derivedDefault: "a quarter of the model's context window",
    description:
      "A single output estimated above this many tokens is offloaded and previewed at once, even when it is the newest one or in the request being sent, so one giant output cannot overflow the context window. Unset, it is a quarter of the active model's context window (262144 for the 1,048,576-token Gemini models, and when no model is known). 0 turns the guard off.",
  },
  {
    key: 'retentionDays',
    type: 'non-negative integer',
    default: 30,
    description:
      'Session folders of offloaded outputs older than this many days are removed in the background at install time. 0 keeps them forever.',
  },
  {
    key: 'allowOtherSessions',
    type: 'boolean',
    default: false,
    description:
      "Lets the read_tool_output tool open offloaded outputs of the project's other sessions.",
  },
];

/** A settings value of the wrong type: names the key, the expected type and (when known) the file. */
export class ToolOutputMaskingSettingsError extends Error {
  constructor(
    readonly key: string,
    readonly expected: string,
    readonly received: unknown,
    readonly source?: string,
  ) {
    const where = source ? ` in ${source}` : '';
    super(
      `Invalid setting ${SETTINGS_PATH}.${key}${where}: expected ${expected}, got ${describeValue(received)}.`,
    );
    this.name = 'ToolOutputMaskingSettingsError';
  }
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function isValid(type: SettingType, value: unknown): boolean {
  switch (type) {
    case 'boolean':
      return typeof value === 'boolean';
    case 'non-negative integer':
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
    case 'array of strings':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
  }
}

/**
 * Checks a raw settings block. Throws `ToolOutputMaskingSettingsError` on the first bad key;
 * unknown keys are ignored (a newer settings file must not break an older toolmask).
 */
export function validateToolOutputMaskingSettings(
  raw: unknown,
  source?: string,
): ToolOutputMaskingSettings {
  if (raw === undefined) return {};
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ToolOutputMaskingSettingsError('', 'an object', raw, source);
  }
  const block = raw as Record<string, unknown>;
  const settings: Record<string, unknown> = {};
  for (const declaration of SETTING_DECLARATIONS) {
    const value = block[declaration.key];
    if (value === undefined) continue;
    if (!isValid(declaration.type, value)) {
      throw new ToolOutputMaskingSettingsError(declaration.key, declaration.type, value, source);
    }
    settings[declaration.key] = value;
  }
  return settings as ToolOutputMaskingSettings;
}

function defaultOf<T>(key: keyof ToolOutputMaskingSettings): T {
  const declaration = SETTING_DECLARATIONS.find((d) => d.key === key);
  if (!declaration) throw new Error(`No declaration for ${key}`);
  return declaration.default as T;
}

/** Fills every unset key with its declared default. Later layers win over earlier ones. */
export function resolveToolOutputMaskingConfig(
  ...layers: readonly ToolOutputMaskingSettings[]
): ToolOutputMaskingConfig {
  const merged: ToolOutputMaskingSettings = Object.assign({}, ...layers);
  const userExempt = merged.exemptTools ?? defaultOf<string[]>('exemptTools');
  return {
    enabled: merged.enabled ?? defaultOf<boolean>('enabled'),
    protectionThresholdTokens:
      merged.toolProtectionThreshold ?? defaultOf<number>('toolProtectionThreshold'),
    minPrunableThresholdTokens:
      merged.minPrunableTokensThreshold ?? defaultOf<number>('minPrunableTokensThreshold'),
    protectLatestTurn: merged.protectLatestTurn ?? defaultOf<boolean>('protectLatestTurn'),
    exemptTools: [...new Set([...BUILT_IN_EXEMPT_TOOLS, ...userExempt])],
    maxOutputTokens: merged.maxOutputTokens ?? defaultOf<number>('maxOutputTokens'),
    retentionDays: merged.retentionDays ?? defaultOf<number>('retentionDays'),
    allowOtherSessions: merged.allowOtherSessions ?? defaultOf<boolean>('allowOtherSessions'),
  };
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
export const DEFAULT_TOOL_OUTPUT_MASKING_CONFIG: ToolOutputMaskingConfig =
  resolveToolOutputMaskingConfig();
