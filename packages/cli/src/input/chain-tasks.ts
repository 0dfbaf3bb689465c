/**
 * Groups tasks into sessions: `concat` consecutive tasks become one long session (a person working
 * through several tasks in one chat), in the order given. The last group may be shorter.
 */
import type { ReplaySession, ReplayTask } from '../replay/types.js';

export function chainTasks(tasks: readonly ReplayTask[], concat = 1): ReplaySession[] {
  if (!Number.isSafeInteger(concat) || concat < 1) {
    throw new RangeError(`concat must be a positive integer, got ${concat}`);
  }
  const sessions: ReplaySession[] = [];
  for (let start = 0; start < tasks.length; start += concat) {
    const group = tasks.slice(start, start + concat);
    const first = group[0] as ReplayTask;
    const label = group.length === 1 ? first.label : `${first.label} + ${group.length - 1} more`;
    sessions.push({ id: `replay-${sessions.length + 1}`, label, tasks: group });
  }
  return sessions;
}
