/**
 * The value types a setting may have (`SETTINGS` in toolOutputMaskingSettings.ts declares each
 * setting with one), what each accepts, and how errors and the docs name it.
 */

export type SettingType = 'boolean' | 'non-negative integer' | 'array of strings' | 'one of';

/** The value a setting of each type holds (`V`: the allowed strings of a `one of` setting). */
export type SettingValue<T extends SettingType, V extends string = string> = T extends 'boolean'
  ? boolean
  : T extends 'non-negative integer'
    ? number
    : T extends 'one of'
      ? V
      : readonly string[];

export interface SettingDeclaration<
  T extends SettingType = SettingType,
  V extends string = string,
> {
  type: T;
  /** A `one of` setting's allowed values, in the order the docs and errors list them. */
  values?: readonly V[];
  /** The value used when nothing else is known (for a derived default: its value for core's default model). */
  default: SettingValue<T, V>;
  /** Set when a host derives the default from its model: how (shown in docs/settings.md). */
  derivedDefault?: string;
  description: string;
  /**
   * The `toolmask replay` option that sets it (without dashes), with its argument name; a
   * boolean gets `--flag` and `--no-flag`. No `flag`: not settable from the command line.
   */
  flag?: { name: string; argument?: string; help: string };
}

/** What a declaration accepts, as errors and docs name it: its type, or its allowed values. */
export function expectedSettingValue(declaration: Pick<SettingDeclaration, 'type' | 'values'>) {
  if (declaration.type !== 'one of') return declaration.type;
  return `one of ${(declaration.values ?? []).map((value) => JSON.stringify(value)).join(', ')}`;
}

/** Whether `value` fits `type` (for `one of`: is one of `values`). */
export function isValidSettingValue(
  type: SettingType,
  value: unknown,
  values: readonly string[] = [],
): boolean {
  switch (type) {
    case 'one of':
      return typeof value === 'string' && values.includes(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'non-negative integer':
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
    case 'array of strings':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
  }
}
