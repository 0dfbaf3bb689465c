/**
 * A call's arguments as the model chose them, read without trusting their shape: anything that is
 * not a plain object is no arguments, a value of the wrong type is no value.
 */

/** The arguments as a record; `{}` for anything else. */
export const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

/** The first of `names` whose value is a string. */
export const stringArg = (
  args: Record<string, unknown>,
  ...names: string[]
): string | undefined => {
  for (const name of names) {
    const value = args[name];
    if (typeof value === 'string') return value;
  }
  return undefined;
};

/** The value of `name` when it is a whole number, 0 or more. */
export const integerArg = (args: Record<string, unknown>, name: string): number | undefined => {
  const value = args[name];
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
};
