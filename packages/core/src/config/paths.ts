/**
 * Where gemini-cli keeps its files, resolved the way gemini-cli-core resolves them, in one place:
 * the global folder (`$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`), the settings files, and a
 * project's temp dir (the folder that holds `tool-outputs/`).
 *
 * Computed here rather than imported from core so that loading toolmask does not load core (about
 * two seconds); a unit test checks that both agree. Every function reads the environment at call
 * time (`GEMINI_CLI_HOME` can be set after toolmask is loaded), from `env` when given.
 */
import { createHash } from 'node:crypto';
import { promises as fs, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TOOL_OUTPUTS_DIR } from '../storage/outputFolderName.js';

export type Environment = Readonly<Record<string, string | undefined>>;

/** gemini-cli's global folder (core's `Storage.getGlobalGeminiDir()`); the OS temp dir without a home. */
export function geminiDir(env: Environment = process.env): string {
  const home = env['GEMINI_CLI_HOME'] || os.homedir();
  return path.join(home || os.tmpdir(), '.gemini');
}

/** The user settings file (core's `Storage.getGlobalSettingsPath()`). */
export function userSettingsPath(env: Environment = process.env): string {
  return path.join(geminiDir(env), 'settings.json');
}

/** The workspace settings file of a project folder. */
export function workspaceSettingsPath(projectDir: string): string {
  return path.join(projectDir, '.gemini', 'settings.json');
}

/** Where gemini-cli keeps its installation id (core's `Storage.getInstallationIdPath()`). */
export function installationIdPath(env: Environment = process.env): string {
  return path.join(geminiDir(env), 'installation_id');
}

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

/**
 * Finds a project's gemini-cli temp dir without writing anything. gemini-cli keeps it at
 * `<geminiDir>/tmp/<id>`, where `<id>` is the project's short id from `<geminiDir>/projects.json`,
 * or (older versions) the SHA-256 of the project's path. `project` may also name the temp dir
 * itself (it has `tool-outputs/`) or the `tool-outputs` folder. Undefined when there is none yet.
 */
export async function findProjectTempDir(
  project: string,
  env: Environment = process.env,
): Promise<ProjectTempDir | undefined> {
  const resolved = path.resolve(project);
  if (isDirectory(path.join(resolved, TOOL_OUTPUTS_DIR))) {
    return { dir: resolved, source: 'temp dir' };
  }
  if (path.basename(resolved) === TOOL_OUTPUTS_DIR && isDirectory(resolved)) {
    return { dir: path.dirname(resolved), source: 'tool-outputs folder' };
  }
  const home = geminiDir(env);
  const tmp = path.join(home, 'tmp');
  const shortId = await registryShortId(home, resolved);
  if (shortId && isDirectory(path.join(tmp, shortId))) {
    return { dir: path.join(tmp, shortId), source: 'project registry' };
  }
  const hashed = path.join(tmp, createHash('sha256').update(resolved).digest('hex'));
  if (isDirectory(hashed)) return { dir: hashed, source: 'project hash' };
  return undefined;
}
