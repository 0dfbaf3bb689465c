/**
 * Which session each usage record is shown in. A record belongs to its conversation, except a side
 * request (usage-record.ts `side`: a router call, a next-speaker check, a title) whose conversation holds
 * nothing but side requests: its prompt is not the conversation's, so the gateway keyed it apart,
 * and alone it would show as a session of its own (two gemini runs listed as four). It is shown in
 * the session it was made for instead:
 *
 * - the main conversation (one with requests that are not side requests) of the same client and
 *   the same session signal, nearest in time: the launcher's header is one per run, so a match is
 *   that run whatever the gap;
 * - without a session signal on either side, the nearest main conversation of the same client
 *   within `NEAR_MS` of its span (the router call comes just before its turn, the check just after);
 * - else its own conversation, which the summary marks as side requests.
 *
 * Pure: the records in, one session id per record out.
 */
import type { UsageRecord } from './usage-record.js';

/** How far from a conversation's span a side request without a session signal may be to join it. */
export const NEAR_MS = 2 * 60_000;

interface MainConversation {
  id: string;
  client: UsageRecord['client'];
  sessions: Set<string>;
  firstAt: number;
  lastAt: number;
}

function mainConversations(records: readonly UsageRecord[]): MainConversation[] {
  const byId = new Map<string, MainConversation>();
  for (const record of records) {
    if (record.side) continue;
    let main = byId.get(record.conversationId);
    if (!main) {
      main = {
        id: record.conversationId,
        client: record.client,
        sessions: new Set(),
        firstAt: record.at,
        lastAt: record.at,
      };
      byId.set(record.conversationId, main);
    }
    if (record.session) main.sessions.add(record.session);
    main.firstAt = Math.min(main.firstAt, record.at);
    main.lastAt = Math.max(main.lastAt, record.at);
  }
  return [...byId.values()];
}

function distance(main: MainConversation, at: number): number {
  return at < main.firstAt ? main.firstAt - at : at > main.lastAt ? at - main.lastAt : 0;
}

/** The main conversation `record` (a side request of a side-only conversation) is shown in. */
function hostOf(record: UsageRecord, mains: readonly MainConversation[]): string | undefined {
  let best: { id: string; distance: number; sameSession: boolean } | undefined;
  for (const main of mains) {
    if (main.client !== record.client) continue;
    const sameSession = record.session !== undefined && main.sessions.has(record.session);
    // A main conversation with another signal is another run; one without may be this one's.
    if (record.session !== undefined && main.sessions.size > 0 && !sameSession) continue;
    const gap = distance(main, record.at);
    if (!sameSession && gap > NEAR_MS) continue;
    const better =
      !best ||
      (sameSession && !best.sameSession) ||
      (sameSession === best.sameSession && gap < best.distance);
    if (better) best = { id: main.id, distance: gap, sameSession };
  }
  return best?.id;
}

/** The session id each record is shown in, index for index. */
export function sessionOf(records: readonly UsageRecord[]): string[] {
  const mains = mainConversations(records);
  const hasMain = new Set(mains.map((main) => main.id));
  return records.map((record) => {
    if (!record.side || hasMain.has(record.conversationId)) return record.conversationId;
    return hostOf(record, mains) ?? record.conversationId;
  });
}
