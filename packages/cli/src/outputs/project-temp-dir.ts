/**
 * Finds a project's gemini-cli temp dir (the folder holding `tool-outputs/`) without writing
 * anything. gemini-cli keeps it at `~/.gemini/tmp/<id>` (`GEMINI_CLI_HOME` replaces `~`), where
 * `<id>` is the project's short id from `~/.gemini/projects.json`, or (older versions) the SHA-256
 * of the project's path.
 *
 * `--project DIR` may name the temp dir itself (it has `tool-outputs/`), the `tool-outputs` folder,
 * or a project root (looked up as above).
 */
import { createHash } from 'node:crypto';
import { existsSync, promises as fs, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TOOL_OUTPUTS_DIR } from '@toolmask/core';

export { TOOL_OUTPUTS_DIR } from '@toolmask/core';

export interface ProjectTempDir {
  /** The folder that holds (or would hold) `tool-outputs/`. */
  dir: string;
  /** How it was found, for messages. */
  source: 'temp dir' | 'tool-outputs folder' | 'project registry' | 'project hash';
}

function isDirectory(candidate: string): boolean {
  try {
    return statSync(candidate).isDirectory();
  } catch {
    return false;
  }
}

export function geminiHome(env: Record<string, string | undefined>): string {
  return path.join(env['GEMINI_CLI_HOME'] || os.homedir(), '.gemini');
}

async function registryShortId(home: string, projectRoot: string): Promise<string | undefined> {
  try {
    const registry = JSON.parse(await fs.readFile(path.join(home, 'projects.json'), 'utf8')) as {
      projects?: Record<string, unknown>;
    };
    const id = registry.projects?.[projectRoot];
    return typeof id === 'string' && /^[a-z0-9-]+$/.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Undefined when the project has no gemini-cli temp dir yet. */
export async function findProjectTempDir(
  project: string,
  env: Record<string, string | undefined>,
): Promise<ProjectTempDir | undefined> {
  const resolved = path.resolve(project);
  if (isDirectory(path.join(resolved, TOOL_OUTPUTS_DIR)))
    return { dir: resolved, source: 'temp dir' };
  if (path.basename(resolved) === TOOL_OUTPUTS_DIR && isDirectory(resolved)) {
    return { dir: path.dirname(resolved), source: 'tool-outputs folder' };
  }
  const home = geminiHome(env);
  const tmp = path.join(home, 'tmp');
  const shortId = await registryShortId(home, resolved);
  if (shortId && existsSync(path.join(tmp, shortId))) {
    return { dir: path.join(tmp, shortId), source: 'project registry' };
  }
  const hashed = path.join(tmp, createHash('sha256').update(resolved).digest('hex'));
  if (existsSync(hashed)) return { dir: hashed, source: 'project hash' };
  return undefined;
}
