/**
 * The `.env` file a client would load, found the way gemini-cli (and qwen-code) look for it: the
 * first of `<dir>/.gemini/.env` (`.qwen` for qwen) and `<dir>/.env`, walking up from the working
 * folder, then `~/.gemini/.env` and `~/.env`. A launcher sets base URLs in the environment, which
 * wins over any `.env`; reading that file tells it where the person's own base URL pointed, so the
 * gateway can use that as its upstream instead of silently replacing it.
 */
import { readFileSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseEnv } from 'node:util';

function isFile(candidate: string): boolean {
  try {
    return statSync(candidate).isFile();
  } catch {
    return false;
  }
}

export function findDotEnv(
  cwd: string,
  clientDir: '.gemini' | '.qwen',
  home = os.homedir(),
): string | undefined {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    for (const candidate of [path.join(dir, clientDir, '.env'), path.join(dir, '.env')]) {
      if (isFile(candidate)) return candidate;
    }
    if (path.dirname(dir) === dir) break;
  }
  for (const candidate of [path.join(home, clientDir, '.env'), path.join(home, '.env')]) {
    if (isFile(candidate)) return candidate;
  }
  return undefined;
}

/** The variables of that `.env`, or none when there is no such file or it cannot be read. */
export function readDotEnv(
  cwd: string,
  clientDir: '.gemini' | '.qwen',
  home?: string,
): Record<string, string> {
  const file = findDotEnv(cwd, clientDir, home);
  if (!file) return {};
  try {
    return parseEnv(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}
