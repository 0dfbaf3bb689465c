/**
 * Where a client that keeps toolmask's masking settings beside its own config (claude, codex,
 * opencode) has its `toolmask.json`: core's place rule (config/settingsPlace.ts), with the
 * person's home. Loaded by the adapters when a command runs (an index.ts imports no code).
 */
import * as os from 'node:os';
import { clientSettingsPath, type SettingsPlaceClient } from '@toolmask/core/settings';
import type { Environment } from '../environment.js';

export function ownSettingsFile(client: SettingsPlaceClient, env: Environment): string {
  return clientSettingsPath(client, env, env['HOME'] || os.homedir());
}
