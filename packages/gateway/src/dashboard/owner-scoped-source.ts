/**
 * A team gateway's dashboard as one person sees it: their own sessions, outputs and figures, and
 * nothing of anyone else's (server/team-access.ts). The admin sees everything. A session that is
 * not the asker's looks like one that does not exist.
 */
import type { Principal } from '../server/team-access.js';
import { mayRead } from '../server/team-access.js';
import type { DashboardSource } from './dashboard-source.js';

export function ownerScopedSource(
  source: DashboardSource,
  principal: Principal | undefined,
  ownerOf: (conversationId: string) => Promise<string | undefined>,
): DashboardSource {
  if (principal?.kind === 'admin') return source;
  const owner = principal?.owner;
  const mine = async (sessionId: string) => mayRead(principal, await ownerOf(sessionId));
  return {
    kind: source.kind,
    // No principal (never admitted): an owner no record has.
    records: (query) => source.records({ ...query, owner: owner ?? '\u0000none' }),
    outputs: async (sessionId) => ((await mine(sessionId)) ? source.outputs(sessionId) : []),
    outputAccess: async (sessionId) =>
      (await mine(sessionId)) ? source.outputAccess(sessionId) : undefined,
    ...(source.openOutput
      ? {
          openOutput: async (sessionId: string, file: string) =>
            (await mine(sessionId)) ? source.openOutput?.(sessionId, file) : undefined,
        }
      : {}),
    status: () => source.status(),
    ...(source.sessionExtras
      ? {
          sessionExtras: async (sessionId: string) =>
            (await mine(sessionId)) ? source.sessionExtras?.(sessionId) : undefined,
        }
      : {}),
    onChange: (listener) => source.onChange(listener),
  };
}
