/**
 * The digest a usage record holds for a request's session signal (`UsageRecord.session`): the
 * first 16 hex digits of its SHA-256. The record never holds the signal itself; the dashboard folds
 * side requests by it (side-request.ts), and `/api/summary` finds a launch's figures by it
 * (usage-tally.ts), so a launcher asks with its own session id and never sends a digest.
 */
import { createHash } from 'node:crypto';

export function sessionDigestOf(session: string): string {
  return createHash('sha256').update(session, 'utf8').digest('hex').slice(0, 16);
}
