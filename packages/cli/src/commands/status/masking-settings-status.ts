/**
 * `toolmask status`'s masking settings: the one precedence rule (core's config/settingsPlace.ts)
 * and, for each client, the settings files that are there and the one that applies: what a
 * launch of that client reads, and what a standalone gateway started without `--settings` reads
 * for that client's requests.
 */
import {
  MASKING_SETTINGS_PRECEDENCE,
  userSettingsPath,
  winningSettingsFile,
} from '@toolmask/core/settings';
import { CLIENTS } from '../../launch/clients/index.js';
import type { Environment } from '../../launch/environment.js';
import { settingsCandidate } from '../../launch/run/masking-settings.js';

export interface ClientMaskingSettings {
  client: string;
  /** The client's files that are there, in the order of the rule (its own, gemini's). */
  files: string[];
  /** The file whose masking settings apply, or `defaults` when none holds any. */
  applies: string;
}

export interface MaskingSettingsStatus {
  rule: string;
  clients: ClientMaskingSettings[];
  /** The running standalone gateway's `--settings` file, read for every client's requests. */
  gatewaySettingsFile?: string;
}

export async function maskingSettingsStatus(
  env: Environment,
  gatewaySettingsFile?: string,
): Promise<MaskingSettingsStatus> {
  const gemini = await settingsCandidate(userSettingsPath(env));
  const clients = await Promise.all(
    CLIENTS.map(async (client): Promise<ClientMaskingSettings> => {
      const ownFile = await client.maskingSettings?.ownFile(env);
      const own = ownFile === undefined ? undefined : await settingsCandidate(ownFile);
      const winner = winningSettingsFile({ own, gemini });
      const candidates = own ? [own, gemini] : [gemini];
      const applies = candidates.find((candidate) => candidate.file === winner);
      return {
        client: client.name,
        files: candidates.filter((candidate) => candidate.exists).map(({ file }) => file),
        applies: applies?.present ? winner : 'defaults',
      };
    }),
  );
  return {
    rule: MASKING_SETTINGS_PRECEDENCE,
    clients,
    ...(gatewaySettingsFile ? { gatewaySettingsFile } : {}),
  };
}

/** The lines `toolmask status` prints. */
export function describeMaskingSettings(status: MaskingSettingsStatus): string[] {
  const width = Math.max(...status.clients.map((entry) => entry.client.length));
  return [
    `masking settings, first that holds some: ${status.rule}`,
    ...status.clients.map((entry) => {
      const applies = entry.applies === 'defaults' ? 'the defaults' : entry.applies;
      const there = entry.files.length > 0 ? entry.files.join(', ') : 'none';
      return `  ${entry.client.padEnd(width)}  ${applies} applies (files there: ${there})`;
    }),
    ...(status.gatewaySettingsFile
      ? [
          `  the gateway running here reads ${status.gatewaySettingsFile} for every client (--settings)`,
        ]
      : []),
  ];
}
