/**
 * The agent CLIs toolmask runs, one adapter each (client-adapter.ts; a folder beside this file).
 * The commands know clients only through this list: `toolmask <client>` and `toolmask setup
 * <client>` are made from it, in its order, and the clients' names are typed here alone
 * (`ClientName`, derived from it). A sixth client is a folder with the same files as the others
 * and one line below.
 */
import type { Environment } from '../environment.js';
import { claudeClient } from './claude/index.js';
import { codexClient } from './codex/index.js';
import { geminiClient } from './gemini/index.js';
import { opencodeClient } from './opencode/index.js';
import { qwenClient } from './qwen/index.js';

export const CLIENTS = [
  geminiClient,
  qwenClient,
  claudeClient,
  codexClient,
  opencodeClient,
] as const;

/** A client's name: `gemini`, `qwen`, `claude`, `codex`, `opencode`. */
export type ClientName = (typeof CLIENTS)[number]['name'];

export type Client = (typeof CLIENTS)[number];

/** The client of that name, or undefined. */
export function clientNamed(name: string): Client | undefined {
  return CLIENTS.find((client) => client.name === name);
}

/**
 * Every client's own saved-output folders (client-adapter.ts `savedOutputs`): what a person's own
 * gateway reads back and searches beside its outputs.
 */
export async function clientSavedOutputs(env: Environment): Promise<string[]> {
  const folders = await Promise.all(CLIENTS.map((client) => client.savedOutputs?.(env) ?? []));
  return folders.flat();
}
