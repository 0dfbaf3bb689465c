/**
 * The dashboard as one principal may see it (server/tenancy.ts): their own sessions, outputs and
 * figures, and nothing of anyone else's. A principal that reads everything (the single-user
 * gateway's person, a team's admin) sees the whole source; for the others, a session they may
 * not read looks like one that does not exist, and the status panel shows the masking settings and
 * their own counts only.
 */
import { readsEverything, type Principal, type Tenancy } from '../server/tenancy.js';
import type { DashboardSource } from './dashboard-source.js';

export function readableSource(
  source: DashboardSource,
  principal: Principal | undefined,
  tenancy: Tenancy,
): DashboardSource {
  if (readsEverything(principal)) return source;
  const owner = principal?.kind === 'owner' ? principal.owner : undefined;
  const mine = (sessionId: string) => tenancy.mayRead(principal, sessionId);
  return {
    kind: source.kind,
    // No principal (never admitted): an owner no record has.
    records: (query) => source.records({ ...query, owner: owner ?? '\u0000none' }),
    outputs: async (sessionId) => ((await mine(sessionId)) ? source.outputs(sessionId) : []),
    outputAccess: async (sessionId) =>
      (await mine(sessionId)) ? source.outputAccess(sessionId) : undefined,
    ...(source.openOutput
      ? {
          openOutput: async (sessionId: string, file: string, reader: string) =>
            (await mine(sessionId)) ? source.openOutput?.(sessionId, file, reader) : undefined,
        }
      : {}),
    // The settings that mask their requests and their own counts: no folder, settings path,
    // upstream URL or anyone else's count (issue 33, finding 13).
    status: async () => {
      const [{ settings }, records] = await Promise.all([
        source.status(),
        source.records({ owner: owner ?? '\u0000none' }),
      ]);
      return {
        settings: { masking: settings['masking'] ?? {} },
        details: {
          requests: records.length,
          conversations: new Set(records.map((record) => record.conversationId)).size,
        },
      };
    },
    ...(source.sessionExtras
      ? {
          sessionExtras: async (sessionId: string) =>
            (await mine(sessionId)) ? source.sessionExtras?.(sessionId) : undefined,
        }
      : {}),
    onChange: (listener) => source.onChange(listener),
  };
}
