/**
 * Where the requests of a session happen. A request goes out before each model turn: the history
 * so far plus the pending user content. The last user content of a task also goes out when no
 * model turn was recorded after it (the session ended there, or the next chained task begins).
 */
import type { Content, ReplaySession } from './types.js';

export interface FlatContent {
  content: Content;
  task: number;
}

export interface RequestPoint {
  /** Index in the flattened session of the pending user content. */
  index: number;
  task: number;
  /** The first request of its task. */
  firstOfTask: boolean;
}

export function flattenSession(session: ReplaySession): FlatContent[] {
  const flat: FlatContent[] = [];
  session.tasks.forEach((task, taskIndex) => {
    for (const content of task.contents) flat.push({ content, task: taskIndex });
  });
  return flat;
}

export function findRequestPoints(flat: readonly FlatContent[]): RequestPoint[] {
  const points: RequestPoint[] = [];
  let lastTask = -1;
  flat.forEach((entry, index) => {
    if (entry.content.role === 'model') return;
    const next = flat[index + 1];
    const endsUserRun = !next || next.content.role === 'model' || next.task !== entry.task;
    if (!endsUserRun) return;
    points.push({ index, task: entry.task, firstOfTask: entry.task !== lastTask });
    lastTask = entry.task;
  });
  return points;
}

/** What makes a request cache-cold in a replay, besides being the first of its session. */
export interface ColdRequestRule {
  /** Chained task starts go on at once (warm). @default false */
  warmTaskStarts?: boolean;
  /** Request indices of this session that follow an idle gap (see idle-gaps.ts). */
  idleGaps?: ReadonlySet<number>;
}

/**
 * Whether request `requestIndex` (at `point`) finds the prompt cache cold: the first request of a
 * session, the first request of every chained task after the first unless task starts are warm,
 * and any request after an idle gap.
 */
export function isColdRequest(
  point: RequestPoint,
  requestIndex: number,
  rule: ColdRequestRule = {},
): boolean {
  if (requestIndex === 0) return true;
  if (point.firstOfTask && point.task > 0 && rule.warmTaskStarts !== true) return true;
  return rule.idleGaps?.has(requestIndex) === true;
}

/** Requests a session makes (per strategy). */
export function countRequests(session: ReplaySession): number {
  return findRequestPoints(flattenSession(session)).length;
}
