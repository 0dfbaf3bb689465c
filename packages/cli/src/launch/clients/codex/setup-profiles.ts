/**
 * Codex profiles next to `toolmask setup codex`: a profile file (`$CODEX_HOME/<name>.config.toml`)
 * that sets its own provider or base URL can take `codex --profile <name>` around the gateway;
 * setup leaves it alone and warns, naming it (setup.ts).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { MAX_SETTINGS_BYTES } from '@toolmask/core/settings';
import { LaunchError } from '../../launch-error.js';
import { readTomlFile } from './config.js';

/** What a profile file may set that takes `codex --profile` around the gateway. */
const PROFILE_ROUTING_KEYS = ['model_provider', 'model_providers', 'openai_base_url'];

/**
 * A warning for each profile file (`<home>/<name>.config.toml`) that sets one of
 * `PROFILE_ROUTING_KEYS`, or that cannot be read to tell. Only regular files of at most 1 MB are
 * read (a FIFO there never blocks setup); config.ts reads them as the launcher does.
 */
export async function profileWarnings(home: string): Promise<string[]> {
  let names: string[];
  try {
    names = (await fs.readdir(home)).filter((name) => name.endsWith('.config.toml')).sort();
  } catch {
    return [];
  }
  const warnings: string[] = [];
  for (const name of names) {
    const file = path.join(home, name);
    const profile = name.slice(0, -'.config.toml'.length);
    const stats = await fs.stat(file).catch(() => undefined);
    if (!stats?.isFile() || stats.size > MAX_SETTINGS_BYTES) continue;
    try {
      const table = await readTomlFile(file);
      const set = PROFILE_ROUTING_KEYS.filter((key) => table[key] !== undefined);
      if (set.length > 0) {
        warnings.push(
          `Warning: ${file} sets ${set.join(' and ')}: \`codex --profile ${profile}\` may not go through the gateway (that file is read over config.toml). Point it at the gateway yourself (docs/gateway.md), or keep that profile for runs you want unmasked.`,
        );
      }
    } catch (error) {
      if (!(error instanceof LaunchError)) throw error;
      warnings.push(
        `Warning: ${error.message}; setup could not tell whether \`codex --profile ${profile}\` goes through the gateway.`,
      );
    }
  }
  return warnings;
}
