/**
 * A client's `.env` file: the one it would load, found the way gemini-cli (and qwen-code) look
 * for it: the first of `<dir>/.gemini/.env` (`.qwen` for qwen) and `<dir>/.env`, walking up from
 * the working folder, then `~/.gemini/.env` and `~/.env`. A launcher sets base URLs in the
 * environment, which wins over any `.env`; reading that file tells it where the person's own base
 * URL pointed, so the gateway can use that as its upstream instead of silently replacing it.
 *
 * And one variable of a `.env` set or removed as text (`setEnvLine`), every other line kept as it
 * is: what `toolmask setup gemini|qwen` changes in the client's own `.env`, and takes back.
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

/** The `.env` a client with the folder `clientDir` (`.gemini`, `.qwen`) loads from `cwd`. */
export function findDotEnv(
  cwd: string,
  clientDir: string,
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
export function readDotEnv(cwd: string, clientDir: string, home?: string): Record<string, string> {
  const file = findDotEnv(cwd, clientDir, home);
  if (!file) return {};
  try {
    return parseEnv(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

/** `.env` text with `name=value` set (a line replaced in place, or appended; undefined removes it). */
export function setEnvLine(text: string, name: string, value: string | undefined): string {
  const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  const at = lines.findIndex((line) => new RegExp(`^\\s*(export\\s+)?${name}\\s*=`).test(line));
  if (value === undefined) {
    if (at >= 0) lines.splice(at, 1);
  } else if (at >= 0) {
    lines[at] = `${name}=${value}`;
  } else {
    lines.push(`${name}=${value}`);
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}
