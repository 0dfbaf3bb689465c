/**
 * The masking settings files of `toolmask gateway` started without `--settings`: each client's own
 * file (its adapter's `maskingSettings.ownFile`), under the name the gateway knows the client by
 * from its requests' user agent, and the files to check before it starts: the one that applies to
 * each client now, and gemini's (read for a request of no known client).
 */
import type { ClientKind } from '@toolmask/gateway';
import { userSettingsPath } from '@toolmask/core/settings';
import { CLIENTS, type ClientName } from '../../launch/clients/index.js';
import type { Environment } from '../../launch/environment.js';
import { maskingSettingsFile } from '../../launch/run/masking-settings.js';

/** The gateway's name for each client's requests (usage-record.ts `clientOf`). */
const REQUEST_CLIENT: Readonly<Record<ClientName, ClientKind>> = {
  gemini: 'gemini-cli',
  qwen: 'qwen-code',
  claude: 'claude-code',
  codex: 'codex',
  opencode: 'opencode',
};

/** Each client's own masking settings file, by the gateway's name for its requests. */
export async function clientSettingsFiles(
  env: Environment,
): Promise<Partial<Record<ClientKind, string>>> {
  const entries = await Promise.all(
    CLIENTS.map(async (client) => {
      const own = await client.maskingSettings?.ownFile(env);
      return own === undefined ? [] : [[REQUEST_CLIENT[client.name], own] as const];
    }),
  );
  return Object.fromEntries(entries.flat());
}

/** The files a gateway without `--settings` reads now: gemini's, and each client's that applies. */
export async function filesToCheck(
  env: Environment,
  own: Partial<Record<ClientKind, string>>,
): Promise<string[]> {
  const applying = await Promise.all(
    Object.values(own).map((ownFile) => maskingSettingsFile(env, { ownFile })),
  );
  return [...new Set([userSettingsPath(env), ...applying])];
}
