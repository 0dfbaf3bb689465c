/**
 * What a launcher keeps in `<state>/launch/` while its client runs, named after the client: a
 * home overlay (`gemini-<pid>-<hex>/`, home-overlay.ts), a settings layer (`qwen-<pid>-<hex>.json`,
 * a copy of the machine's qwen settings, which may hold an API key) or a settings layer and MCP
 * file (`claude-<pid>-<hex>/`). A launcher that is killed cannot remove its own, so each launch
 * sweeps those of its client whose launcher is gone. The launcher's pid is in the name: it is
 * known before anything inside is written, and a name cannot be torn by a kill (a file's content
 * can).
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isProcessAlive } from '@toolmask/core/utils';

/** A fresh name for this process's entry of `client` (a folder, or a file with `extension`). */
export function launchEntryName(client: string, extension = ''): string {
  return `${client}-${process.pid}-${randomBytes(4).toString('hex')}${extension}`;
}

function pidOf(name: string, client: string, extension: string): number | undefined {
  const match = new RegExp(`^${client}-(\\d+)-[0-9a-f]+${extension.replace('.', '\\.')}$`).exec(
    name,
  );
  return match ? Number(match[1]) : undefined;
}

/** The entries of `client` whose launcher is no longer running (full paths). */
export async function abandonedEntries(
  launchDir: string,
  client: string,
  extension = '',
): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(launchDir);
  } catch {
    return [];
  }
  return names
    .filter((name) => {
      const pid = pidOf(name, client, extension);
      return pid !== undefined && !isProcessAlive(pid);
    })
    .map((name) => path.join(launchDir, name));
}

/** Removes the entries (files or folders) of `client` whose launcher was killed. Never throws. */
export async function sweepAbandoned(
  launchDir: string,
  client: string,
  extension = '',
): Promise<void> {
  for (const entry of await abandonedEntries(launchDir, client, extension)) {
    await fs.rm(entry, { recursive: true, force: true }).catch(() => undefined);
  }
}
