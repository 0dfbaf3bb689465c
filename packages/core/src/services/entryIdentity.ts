/**
 * What identifies a history entry between passes: its `parts` array when it has one (a host
 * copies an entry's object but keeps its parts; historyLedger.ts), else the entry itself. The
 * ledger and the superseded outputs keep what they found per entry by this identity.
 */
import type { Content } from './maskingTypes.js';

export function identityOf(content: Content | undefined): unknown {
  if (content === null || typeof content !== 'object') return content;
  const parts = content.parts;
  return Array.isArray(parts) ? parts : content;
}
