/**
 * The codex flags the launcher reads in the person's arguments (codex 0.169.0 parses them with
 * clap: a value follows the flag, after `=`, or, for a short flag, glued to it; `--` ends the
 * options): `-c/--config key=value` overrides, `-p/--profile NAME`, `-C/--cd DIR`, `--oss`,
 * `--local-provider` and `--ignore-user-config`.
 *
 * A `-c` given after a subcommand (`codex exec -c …`) wins over one given before it, and the
 * launcher's own go before the person's arguments (root options apply to every subcommand). So
 * the person's overrides of what the launcher sets (the model provider, its table, the OpenAI base
 * URL, the `toolmask` MCP server) are taken out of their arguments, read into the plan, and put
 * back in front of the launcher's own: they still choose the provider and its upstream, and the
 * launcher's route to the gateway comes last.
 */
import { parseOverrideValue, type TomlValue } from '../../files/toml-values.js';

export interface CodexOverride {
  /** The dotted key, split (`model_providers.x.base_url` → three parts). */
  keys: string[];
  value: TomlValue;
  /** The override as codex takes it: `key=value`. */
  text: string;
}

export interface CodexArgs {
  overrides: CodexOverride[];
  profile?: string;
  cd?: string;
  oss: boolean;
  ignoreUserConfig: boolean;
}

/** The value of `flag` at `index`: inline (`--flag=v`, `-fv`) or the next argument. */
function flagValue(
  args: readonly string[],
  index: number,
  long: string,
  short: string,
): { value: string; consumed: number } | undefined {
  const arg = args[index]!;
  if (arg === long || arg === short) {
    const next = args[index + 1];
    return next === undefined ? undefined : { value: next, consumed: 2 };
  }
  if (arg.startsWith(`${long}=`)) return { value: arg.slice(long.length + 1), consumed: 1 };
  if (short && arg.startsWith(short) && !arg.startsWith('--') && arg.length > short.length) {
    const rest = arg.slice(short.length);
    return { value: rest.startsWith('=') ? rest.slice(1) : rest, consumed: 1 };
  }
  return undefined;
}

function override(text: string): CodexOverride | undefined {
  const equals = text.indexOf('=');
  if (equals <= 0) return undefined;
  return {
    keys: text
      .slice(0, equals)
      .trim()
      .split('.')
      .map((key) => key.trim()),
    value: parseOverrideValue(text.slice(equals + 1)),
    text,
  };
}

/** Whether the launcher sets this key too (see the module comment). */
export function touchesRouting(keys: readonly string[]): boolean {
  const [first, second] = keys;
  return (
    first === 'model_provider' ||
    first === 'model_providers' ||
    first === 'openai_base_url' ||
    (first === 'mcp_servers' && (second === undefined || second === 'toolmask'))
  );
}

/** What the launcher reads in the person's codex arguments. */
export function readCodexArgs(args: readonly string[]): CodexArgs {
  const result: CodexArgs = { overrides: [], oss: false, ignoreUserConfig: false };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--') break;
    if (arg === '--oss' || arg.startsWith('--local-provider')) result.oss = true;
    if (arg === '--ignore-user-config') result.ignoreUserConfig = true;
    const config = flagValue(args, index, '--config', '-c');
    if (config) {
      const parsed = override(config.value);
      if (parsed) result.overrides.push(parsed);
      index += config.consumed - 1;
      continue;
    }
    const profile = flagValue(args, index, '--profile', '-p');
    if (profile) {
      result.profile = profile.value;
      index += profile.consumed - 1;
      continue;
    }
    const cd = flagValue(args, index, '--cd', '-C');
    if (cd) {
      result.cd = cd.value;
      index += cd.consumed - 1;
    }
  }
  return result;
}

/**
 * The person's arguments split: their overrides of what the launcher sets (as `-c` pairs, in
 * their order) and everything else, unchanged.
 */
export function splitRoutingOverrides(args: readonly string[]): {
  routing: string[];
  rest: string[];
} {
  const routing: string[] = [];
  const rest: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--') {
      rest.push(...args.slice(index));
      break;
    }
    const config = flagValue(args, index, '--config', '-c');
    const parsed = config ? override(config.value) : undefined;
    if (config && parsed && touchesRouting(parsed.keys)) {
      routing.push('-c', config.value);
      index += config.consumed - 1;
      continue;
    }
    const consumed = config?.consumed ?? 1;
    rest.push(...args.slice(index, index + consumed));
    index += consumed - 1;
  }
  return { routing, rest };
}
