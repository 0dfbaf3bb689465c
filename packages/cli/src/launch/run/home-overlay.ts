/**
 * A one-run view of a client's home folder (`~/.gemini` for gemini) with toolmask's settings added,
 * without editing the person's files: for a client that reads extra settings layers only from
 * files a normal user cannot add, but takes its whole folder from a variable (gemini-cli 0.61.0:
 * `GEMINI_CLI_HOME`). The launcher makes `<overlay>/<folder>/`: every entry of the real folder
 * linked in (credentials, history, `tmp/`, trusted folders: reads and writes go straight through),
 * and a `settings.json` that is the person's own text with a few values set (gemini: the MCP
 * server, an auth type when none is chosen).
 *
 * When the run ends, `restore()` brings back what the client wrote into the overlay itself:
 * entries it created (or replaced instead of writing through a link) move to the real folder, and
 * changes it made to `settings.json` are applied to the person's file as edits (comments kept),
 * without toolmask's own additions. An overlay left by a launcher that was killed is restored by
 * the next launch.
 *
 * The client names files by the paths it sees, and it saw the overlay's: gemini's "Output too
 * long and was saved to: <overlay>/.gemini/tmp/…" stays in its chat record (and in the outputs
 * toolmask saved), and `gemini --resume` reads it again later. Rewriting those records would
 * change bytes already sent (the prompt cache, toolmask's own decisions). So a restored overlay
 * keeps its folder with one entry, `<folder>`, a link to the real folder: every path the client
 * printed during the run still leads to the same file, now in the real folder. That is one folder
 * and one link per run.
 */
import { describeError } from '@toolmask/core/errors';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ensurePrivateDirectory, writeAtomically } from '@toolmask/core/files';
import {
  parseSettings,
  readSettingsFile,
  setInText,
  valueAt,
  type JsonPath,
} from '../files/jsonc-settings.js';
import { abandonedEntries, launchEntryName } from './launch-leftovers.js';
import { ensureOwnDirectory, linkTarget, writeOwnFile } from '../files/person-files.js';
import { sameJson } from '@toolmask/core/utils';

export interface SettingsInjection {
  path: JsonPath;
  value: unknown;
}

/** Whose home folder an overlay is a view of. */
export interface OverlayOf {
  /** The client's name, which starts its overlays' names (`gemini-<pid>-<hex>`). */
  client: string;
  /** Its folder in its home (`.gemini`), the overlay's one entry once restored. */
  folder: string;
}

export interface HomeOverlay {
  /** The home the client runs with (gemini: the value for `GEMINI_CLI_HOME`). */
  home: string;
  /** Brings back what the run wrote, removes the overlay. Never throws; returns warnings. */
  restore(): Promise<string[]>;
}

const SETTINGS = 'settings.json';
const OWNER_FILE = '.toolmask-overlay.json';

interface OverlayOwner {
  pid: number;
  realDir: string;
  written: string;
  injections: SettingsInjection[];
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

async function moveInto(source: string, target: string): Promise<void> {
  await fs.rm(target, { recursive: true, force: true });
  try {
    await fs.rename(source, target);
  } catch (error) {
    if ((error as { code?: string }).code !== 'EXDEV') throw error;
    await fs.cp(source, target, { recursive: true });
    await fs.rm(source, { recursive: true, force: true });
  }
}

/**
 * The person's settings text with what the client changed during the run applied: the top-level
 * keys whose value differs between what the overlay started with and what it holds now, minus
 * toolmask's injections (still the values it set).
 */
function mergeBack(
  realText: string,
  written: string,
  now: string,
  injections: readonly SettingsInjection[],
  file: string,
): string {
  const before = parseSettings(written, file);
  const after = parseSettings(now, file);
  for (const injection of injections) {
    // Ours, unchanged by the run: not a change of the person's.
    if (sameJson(valueAt(after, injection.path), injection.value)) {
      setPath(after, injection.path, valueAt(parseSettings(realText, file), injection.path));
      setPath(before, injection.path, valueAt(parseSettings(realText, file), injection.path));
    }
  }
  let text = realText;
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (!sameJson(before[key], after[key])) text = setInText(text, [key], after[key]);
  }
  return text;
}

function setPath(target: Record<string, unknown>, jsonPath: JsonPath, value: unknown): void {
  let node: Record<string | number, unknown> = target;
  for (const key of jsonPath.slice(0, -1)) {
    const next = node[key];
    if (next === null || typeof next !== 'object') {
      if (value === undefined) return;
      node[key] = {};
    }
    node = node[key] as Record<string | number, unknown>;
  }
  const last = jsonPath[jsonPath.length - 1] as string | number;
  if (value === undefined) delete node[last];
  else node[last] = value;
}

/** A restored overlay: its `<folder>` is the link to the real folder (keepPathsReachable). */
async function isKeptView(overlayRoot: string, of: OverlayOf): Promise<boolean> {
  try {
    return (await fs.lstat(path.join(overlayRoot, of.folder))).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * The overlay emptied and its `<folder>` made a link to the real folder, where everything it held
 * now is: the paths the client printed during the run stay valid (see the module comment).
 */
async function keepPathsReachable(
  overlayRoot: string,
  realDir: string,
  of: OverlayOf,
): Promise<void> {
  await fs.rm(overlayRoot, { recursive: true, force: true });
  // Made afresh (ensurePrivateDirectory remembers folders it checked, this one included).
  await fs.mkdir(overlayRoot, { mode: 0o700 });
  await fs.symlink(realDir, path.join(overlayRoot, of.folder));
}

/**
 * How long a restored overlay keeps its link: gemini's saved-output paths of a run stay valid
 * this long (a `gemini --resume` of an older chat names dead paths), then the folder goes, so
 * that runs do not pile up folders in the state folder forever. The same 30 days as the gateway's
 * default retention.
 */
export const KEPT_VIEW_MS = 30 * 24 * 60 * 60 * 1000;

/** A kept view whose link was made more than `KEPT_VIEW_MS` ago (never throws). */
async function isExpiredView(overlayRoot: string, of: OverlayOf, now: number): Promise<boolean> {
  try {
    const stats = await fs.lstat(path.join(overlayRoot, of.folder));
    return now - stats.mtimeMs > KEPT_VIEW_MS;
  } catch {
    return false;
  }
}

async function restoreOverlay(overlayRoot: string, of: OverlayOf, now: number): Promise<string[]> {
  const warnings: string[] = [];
  const overlayDir = path.join(overlayRoot, of.folder);
  if (await isKeptView(overlayRoot, of)) {
    if (await isExpiredView(overlayRoot, of, now)) {
      await fs.rm(overlayRoot, { recursive: true, force: true });
    }
    return warnings;
  }
  const owner = await readOwner(overlayRoot);
  if (!owner) {
    // No owner file (written whole, before the client starts): the client never ran in this view.
    await fs.rm(overlayRoot, { recursive: true, force: true });
    return warnings;
  }
  let entries: string[];
  try {
    entries = await fs.readdir(overlayDir);
  } catch {
    entries = [];
  }
  for (const name of entries) {
    const inOverlay = path.join(overlayDir, name);
    try {
      const stats = await fs.lstat(inOverlay);
      if (stats.isSymbolicLink()) continue;
      if (name === SETTINGS) {
        const now = await readSettingsFile(inOverlay);
        if (now === undefined || now === owner.written) continue;
        const realFile = path.join(owner.realDir, SETTINGS);
        const realText = (await readSettingsFile(realFile)) ?? '';
        await writeOwnFile(
          realFile,
          mergeBack(realText, owner.written, now, owner.injections, realFile),
        );
        continue;
      }
      // Created by this run, or written by replacing our link: the newest copy is this one. An
      // entry of the person's that is a link (dotfiles) gets it at the link's target.
      await moveInto(inOverlay, await linkTarget(path.join(owner.realDir, name)));
    } catch (error) {
      warnings.push(`could not bring back ${inOverlay}: ${describeError(error)}`);
    }
  }
  await keepPathsReachable(overlayRoot, owner.realDir, of);
  return warnings;
}

/**
 * Restores and removes overlays whose launcher is gone (killed before it could), and removes kept
 * views older than `KEPT_VIEW_MS`. Never throws: a leftover that cannot be handled must not stop
 * this launch; returns warnings.
 */
export async function restoreAbandonedOverlays(
  launchDir: string,
  of: OverlayOf,
  now: number = Date.now(),
): Promise<string[]> {
  const warnings: string[] = [];
  for (const root of await abandonedEntries(launchDir, of.client)) {
    warnings.push(
      ...(await restoreOverlay(root, of, now).catch((error: unknown) => [String(error)])),
    );
  }
  return warnings;
}

/** The owner file of an overlay; undefined when it is missing or not one (never throws). */
async function readOwner(overlayRoot: string): Promise<OverlayOwner | undefined> {
  const text = await readText(path.join(overlayRoot, OWNER_FILE));
  if (text === undefined) return undefined;
  try {
    const owner = JSON.parse(text) as Partial<OverlayOwner> | null;
    return typeof owner?.realDir === 'string' &&
      typeof owner.written === 'string' &&
      Array.isArray(owner.injections)
      ? (owner as OverlayOwner)
      : undefined;
  } catch {
    return undefined;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.stat(file);
    return true;
  } catch {
    return false;
  }
}

export async function createHomeOverlay(options: {
  of: OverlayOf;
  /** The person's real folder (gemini: `geminiDir()` of core, which honours GEMINI_CLI_HOME). */
  realDir: string;
  /** Where overlays live (`<stateDir>/launch`). */
  launchDir: string;
  injections: readonly SettingsInjection[];
}): Promise<HomeOverlay> {
  const { of } = options;
  await restoreAbandonedOverlays(options.launchDir, of);
  // The person's folder (maybe a link into their dotfiles): made if missing, never checked or
  // changed like toolmask's own private folders.
  await ensureOwnDirectory(options.realDir);
  const root = path.join(options.launchDir, launchEntryName(of.client));
  const overlayDir = path.join(root, of.folder);
  await ensurePrivateDirectory(overlayDir);
  for (const name of await fs.readdir(options.realDir)) {
    if (name === SETTINGS) continue;
    await fs.symlink(path.join(options.realDir, name), path.join(overlayDir, name));
  }
  // gemini's last place for a .env is the home folder itself (`<GEMINI_CLI_HOME>/.env`); with
  // the overlay as its home, the person's own must be there too.
  const homeDotEnv = path.join(path.dirname(options.realDir), '.env');
  if (await exists(homeDotEnv)) await fs.symlink(homeDotEnv, path.join(root, '.env'));
  const settingsFile = path.join(options.realDir, SETTINGS);
  let written = (await readSettingsFile(settingsFile)) ?? '';
  // A syntax error in the person's file: the client would report it; add nothing rather than guess.
  parseSettings(written, settingsFile);
  for (const injection of options.injections) {
    written = setInText(written, injection.path, injection.value);
  }
  await fs.writeFile(path.join(overlayDir, SETTINGS), written, { mode: 0o600 });
  const owner: OverlayOwner = {
    pid: process.pid,
    realDir: options.realDir,
    written,
    injections: [...options.injections],
  };
  // Whole or not at all: a launcher killed mid-write must not leave a torn owner file.
  await writeAtomically(path.join(root, OWNER_FILE), JSON.stringify(owner));
  let restored: Promise<string[]> | undefined;
  return {
    home: root,
    restore: () =>
      (restored ??= restoreOverlay(root, of, Date.now()).catch((error: unknown) => [
        String(error),
      ])),
  };
}
