/**
 * What a launcher keeps in `<state>/launch/` while its client runs: a gemini home overlay
 * (`gemini-<pid>-<hex>/`, gemini-home-overlay.ts), a qwen settings layer
 * (`qwen-<pid>-<hex>.json`, a copy of the machine's qwen settings, which may hold an API key) or
 * claude's settings layer and MCP file (`claude-<pid>-<hex>/`, claude-launch.ts). A
 * launcher that is killed cannot remove its own, so each launch sweeps those whose launcher is
 * gone. The launcher's pid is in the name: it is known before anything inside is written, and a
 * name cannot be torn by a kill (a file's content can).
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isProcessAlive } from '@toolmask/core/utils';

export type LaunchKind = 'gemini' | 'qwen' | 'claude';

const SUFFIX: Record<LaunchKind, string> = { gemini: '', qwen: '.json', claude: '' };

/** A fresh name for this process's entry of that kind. */
export function launchEntryName(kind: LaunchKind): string {
  return `${kind}-${process.pid}-${randomBytes(4).toString('hex')}${SUFFIX[kind]}`;
}

function pidOf(name: string, kind: LaunchKind): number | undefined {
  const match = new RegExp(`^${kind}-(\\d+)-[0-9a-f]+${SUFFIX[kind].replace('.', '\\.')}$`).exec(
    name,
  );
  return match ? Number(match[1]) : undefined;
}

/** The entries of that kind whose launcher is no longer running (full paths). */
export async function abandonedEntries(launchDir: string, kind: LaunchKind): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(launchDir);
  } catch {
    return [];
  }
  return names
    .filter((name) => {
      const pid = pidOf(name, kind);
      return pid !== undefined && !isProcessAlive(pid);
    })
    .map((name) => path.join(launchDir, name));
}

/** Removes the qwen layers of launchers that were killed. Never throws. */
export async function sweepQwenLayers(launchDir: string): Promise<void> {
  for (const layer of await abandonedEntries(launchDir, 'qwen')) {
    await fs.rm(layer, { force: true }).catch(() => undefined);
  }
}

/** Removes the claude folders of launchers that were killed. Never throws. */
export async function sweepClaudeFolders(launchDir: string): Promise<void> {
  for (const folder of await abandonedEntries(launchDir, 'claude')) {
    await fs.rm(folder, { recursive: true, force: true }).catch(() => undefined);
  }
}
