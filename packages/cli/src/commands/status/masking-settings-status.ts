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
import { maskingSettingsProblems, settingsCandidate } from '../../launch/run/masking-settings.js';

export interface ClientMaskingSettings {
  client: string;
  /** The client's files that are there, in the order of the rule (its own, gemini's). */
  files: string[];
  /** The file whose masking settings apply, or `defaults` when none holds any. */
  applies: string;
  /**
   * Why a launch of the client refuses that file (exit 2), one sentence each (the key, the type
   * expected): the same words as the launcher's. Absent when it is accepted.
   */
  refused?: string[];
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
      // The launcher's own check of the file it would read (launch-command.ts `checkLaunch`).
      const { problems } = await maskingSettingsProblems(winner);
      return {
        client: client.name,
        files: candidates.filter((candidate) => candidate.exists).map(({ file }) => file),
        applies: applies?.present ? winner : 'defaults',
        ...(problems.length > 0 ? { refused: problems } : {}),
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
    ...status.clients.flatMap((entry) => {
      const there = `(files there: ${entry.files.length > 0 ? entry.files.join(', ') : 'none'})`;
      const name = `  ${entry.client.padEnd(width)}  `;
      if (entry.refused) {
        return [
          `${name}${entry.applies} is refused: toolmask ${entry.client} and toolmask gateway stop with exit 2 until it is fixed ${there}`,
          ...entry.refused.map((problem) => `${' '.repeat(name.length)}${problem}`),
        ];
      }
      const applies =
        entry.applies === 'defaults' ? 'the defaults apply' : `${entry.applies} applies`;
      return [`${name}${applies} ${there}`];
    }),
    ...(status.gatewaySettingsFile
      ? [
          `  the gateway running here reads ${status.gatewaySettingsFile} for every client (--settings)`,
        ]
      : []),
  ];
}
