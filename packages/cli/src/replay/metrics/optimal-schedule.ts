/**
 * The offline optimum of a masking policy: the cheapest billed cost that any schedule of masking
 * events could reach on one session, knowing the whole future. The policy's windows and snippets
 * stay as they are; only *when* to mask is free.
 *
 * The model (see schedule-model.ts for how it is measured from the real pass):
 * - the maskable outputs, in history order, each with the tokens its snippet saves;
 * - an event masks a prefix of them: everything prunable at that request. A warm request may
 *   mask up to `warmEventEnds[j]` outputs, a cold one up to `coldEventEnds[j]` (a cold moment may
 *   use a smaller window), and nothing is ever unmasked, so the state after a request is the
 *   length of the masked prefix;
 * - pricing is the replay engine's: a request's cached tokens are the tokens of the contents
 *   unchanged since the previous request (none when it is cold), billed tokens are
 *   `uncached + discount × cached`. An event on a warm request re-sends uncached everything from
 *   the first content it changes.
 *
 * Dynamic programming over (request, masked prefix): O(requests × outputs).
 */

export interface ScheduleModel {
  /** Tokens of the session's first k contents with nothing masked, for k = 0..contents. */
  prefixTokens: readonly number[];
  /** Per request: how many contents it sends (the session's first N). */
  requestLengths: readonly number[];
  /** Per request: priced cold (no cached tokens; an event there breaks nothing). */
  cold: readonly boolean[];
  /** Maskable outputs in history order: where each one is and what masking it saves. */
  outputs: readonly { contentIndex: number; partIndex: number; savedTokens: number }[];
  /** Per request: the masked prefix an event there reaches (everything prunable at that point). */
  warmEventEnds: readonly number[];
  /** Per request: the same for an event at a cold moment (the cold-moment window). */
  coldEventEnds: readonly number[];
}

export interface ScheduleCost {
  billedTokens: number;
  inputTokens: number;
  cachedTokens: number;
  /** Masked prefix after each request's pass. */
  states: number[];
  /** Requests whose pass masked something, and those of them that were warm (cache breaks). */
  events: number;
  cacheBreaks: number;
}

interface Prepared {
  model: ScheduleModel;
  /** savedBefore[L]: tokens saved by the first L outputs. */
  savedBefore: Float64Array;
  /** Per content f: index of the first output in a content at or after f. */
  firstOutputFrom: Int32Array;
}

function prepare(model: ScheduleModel): Prepared {
  const outputs = model.outputs;
  const savedBefore = new Float64Array(outputs.length + 1);
  outputs.forEach((output, index) => {
    savedBefore[index + 1] = (savedBefore[index] as number) + output.savedTokens;
  });
  const contents = model.prefixTokens.length - 1;
  const firstOutputFrom = new Int32Array(contents + 1);
  let next = 0;
  for (let content = 0; content <= contents; content++) {
    while (
      next < outputs.length &&
      (outputs[next] as { contentIndex: number }).contentIndex < content
    )
      next++;
    firstOutputFrom[content] = next;
  }
  return { model, savedBefore, firstOutputFrom };
}

/** Input and cached tokens of request `j` moving from masked prefix `from` to `to`. */
function requestTokens(
  prepared: Prepared,
  j: number,
  from: number,
  to: number,
): { input: number; cached: number } {
  const { model, savedBefore, firstOutputFrom } = prepared;
  const prefix = model.prefixTokens;
  const input = (prefix[model.requestLengths[j] as number] as number) - (savedBefore[to] as number);
  if (j === 0 || model.cold[j]) return { input, cached: 0 };
  const previousLength = model.requestLengths[j - 1] as number;
  const wholePrevious = (prefix[previousLength] as number) - (savedBefore[from] as number);
  if (to === from) return { input, cached: wholePrevious };
  const firstChanged = (model.outputs[from] as { contentIndex: number }).contentIndex;
  if (firstChanged >= previousLength) return { input, cached: wholePrevious };
  const cached =
    (prefix[firstChanged] as number) -
    (savedBefore[firstOutputFrom[firstChanged] as number] as number);
  return { input, cached };
}

/** The cost of one given schedule (the masked prefix after each request). */
export function scheduleCost(
  model: ScheduleModel,
  states: readonly number[],
  discount: number,
): ScheduleCost {
  const prepared = prepare(model);
  const cost: ScheduleCost = {
    billedTokens: 0,
    inputTokens: 0,
    cachedTokens: 0,
    states: [...states],
    events: 0,
    cacheBreaks: 0,
  };
  let from = 0;
  model.requestLengths.forEach((_, j) => {
    const to = states[j] ?? from;
    const { input, cached } = requestTokens(prepared, j, from, to);
    cost.inputTokens += input;
    cost.cachedTokens += cached;
    cost.billedTokens += input - (1 - discount) * cached;
    if (to !== from) {
      cost.events++;
      if (j > 0 && !model.cold[j]) cost.cacheBreaks++;
    }
    from = to;
  });
  return cost;
}

/** The cheapest schedule: its cost and the masked prefix after each request. */
export function optimalSchedule(model: ScheduleModel, discount: number): ScheduleCost {
  const prepared = prepare(model);
  const requests = model.requestLengths.length;
  const states = model.outputs.length + 1;
  let best = new Float64Array(states).fill(Infinity);
  best[0] = 0;
  const parents: Int32Array[] = [];
  for (let j = 0; j < requests; j++) {
    const next = new Float64Array(states).fill(Infinity);
    const parent = new Int32Array(states).fill(-1);
    const consider = (from: number, to: number) => {
      const { input, cached } = requestTokens(prepared, j, from, to);
      const total = (best[from] as number) + input - (1 - discount) * cached;
      if (total < (next[to] as number)) {
        next[to] = total;
        parent[to] = from;
      }
    };
    for (let from = 0; from < states; from++) {
      if (best[from] === Infinity) continue;
      consider(from, from);
      const warmEnd = model.warmEventEnds[j] ?? 0;
      if (warmEnd > from) consider(from, warmEnd);
      const coldEnd = model.coldEventEnds[j] ?? 0;
      if (model.cold[j] && coldEnd > from && coldEnd !== warmEnd) consider(from, coldEnd);
    }
    parents.push(parent);
    best = next;
  }
  let end = 0;
  for (let state = 1; state < states; state++) {
    if ((best[state] as number) < (best[end] as number)) end = state;
  }
  const path = new Array<number>(requests);
  for (let j = requests - 1; j >= 0; j--) {
    path[j] = end;
    end = (parents[j] as Int32Array)[end] as number;
  }
  return scheduleCost(model, path, discount);
}
