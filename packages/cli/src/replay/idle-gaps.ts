/**
 * Idle gaps inside a task: the person pauses in the middle of the work (lunch, a meeting) and
 * then goes on with the same task, so the prompt cache is cold but the outputs before the pause
 * are still needed. Chained tasks (`--concat`) only model pauses between independent tasks; these
 * gaps model the other kind.
 *
 * One gap per task, at a request drawn from the middle half of the task's requests (never its
 * first). The draw is a hash of the seed, the session's label and the task's label, so the same
 * input and seed give the same gaps on every run and machine.
 */
import { createHash } from 'node:crypto';
import { findRequestPoints, flattenSession } from './request-points.js';
import type { ReplaySession } from './types.js';

/** Per session id, the request indices that follow an idle gap. */
export type IdleGaps = ReadonlyMap<string, ReadonlySet<number>>;

/** Tasks with fewer requests get no gap: there is no middle to pause in. */
export const MIN_REQUESTS_FOR_GAP = 4;

/** A number in [0, 1) from the hash of `key`. */
function hashFraction(key: string): number {
  const digest = createHash('sha256').update(key).digest();
  return digest.readUInt32BE(0) / 2 ** 32;
}

export function seedIdleGaps(sessions: readonly ReplaySession[], seed = 1): IdleGaps {
  const gaps = new Map<string, Set<number>>();
  for (const session of sessions) {
    const points = findRequestPoints(flattenSession(session));
    const chosen = new Set<number>();
    session.tasks.forEach((task, taskIndex) => {
      const requests = points.flatMap((point, index) => (point.task === taskIndex ? [index] : []));
      if (requests.length < MIN_REQUESTS_FOR_GAP) return;
      const start = Math.max(1, Math.floor(requests.length / 4));
      const end = Math.floor((requests.length * 3) / 4);
      const draw = hashFraction(
        `${seed}\u0000${session.label}\u0000${taskIndex}\u0000${task.label}`,
      );
      chosen.add(requests[start + Math.floor(draw * (end - start))] as number);
    });
    gaps.set(session.id, chosen);
  }
  return gaps;
}
