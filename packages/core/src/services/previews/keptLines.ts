/**
 * Which lines a selection keeps (lineSelection.ts): the first ones in their order while they
 * fit, then the rest of the budget by worth per character, most first, ties in line order.
 *
 * It used to sort every candidate with a comparator, the largest cost of a selection on a cold
 * pass (issue 30). When every candidate has the same worth (run outcomes, logs, diffs, most
 * reads), more worth per character is fewer characters, so the greedy order is the order by
 * cost: the cost at which the budget runs out is found from a count of the costs, and the lines
 * below it are taken, with as many of that cost as fit, in line order. Two worths or more (a
 * named region of a read) keep the sort.
 */
/** What a selection asks (lineSelection.ts: `LineSelection`). */
interface Selection {
  first?: readonly number[];
  worth: (index: number) => number;
}

/**
 * Which lines a selection keeps: the first ones in their order while they fit, then the rest of
 * the budget by worth per character (most first, ties in line order), each while it fits.
 */
export function keptLines(
  count: number,
  selection: Selection,
  costs: (number | undefined)[],
  costOf: (index: number) => number,
  budget: number,
): boolean[] {
  // A line's cost is `costs[index]`, or `costOf(index)` (which fills it in) where it is a hole:
  // read in place in the loops over every candidate, not through a closure per line (issue 30).
  const cost = (index: number) => costs[index] ?? costOf(index);
  const kept = new Array<boolean>(count);
  let used = 0;
  const keep = (index: number) => {
    if (index < 0 || index >= count || kept[index] === true) return;
    const value = costs[index] ?? costOf(index);
    if (used + value > budget) return;
    kept[index] = true;
    used += value;
  };
  for (const index of selection.first ?? []) keep(index);
  const candidates: number[] = [];
  const worths: number[] = [];
  let oneWorth = true;
  for (let index = 0; index < count; index++) {
    if (kept[index] === true) continue;
    const worth = selection.worth(index);
    if (worth > 0) {
      if (candidates.length > 0 && worth !== worths[0]) oneWorth = false;
      candidates.push(index);
      worths.push(worth);
    }
  }
  const order = oneWorth
    ? cheapestFirst(candidates, worths[0] ?? 1, costs, costOf, budget - used)
    : byWorthPerCharacter(candidates, worths, cost);
  if (!order) {
    for (const index of candidates) kept[index] = true;
    return kept;
  }
  for (const index of order) keep(index);
  return kept;
}

/** Costs and worths within which the order by cost is the order by worth per character. */
const EXACT_ORDER_BELOW = 1 << 26;

/**
 * The candidates of one worth that fit, cheapest first, ties in line order (the order by worth
 * per character, see `EXACT_ORDER_BELOW`), without sorting them: the costs are counted, the
 * cost at which the budget runs out found, and the lines below it taken with as many of that
 * cost as fit, in line order. Undefined when every candidate fits; the sorted order when the
 * costs or the worth are out of `EXACT_ORDER_BELOW`.
 */
function cheapestFirst(
  candidates: readonly number[],
  worth: number,
  costs: (number | undefined)[],
  costOf: (index: number) => number,
  budget: number,
): number[] | undefined {
  const cost = (index: number) => costs[index] ?? costOf(index);
  const counts: number[] = [];
  let total = 0;
  for (let at = 0; at < candidates.length; at++) {
    const index = candidates[at] as number;
    const value = costs[index] ?? costOf(index);
    if (
      value >= EXACT_ORDER_BELOW ||
      !(worth > 1 / EXACT_ORDER_BELOW && worth < EXACT_ORDER_BELOW)
    ) {
      return byWorthPerCharacter(
        candidates,
        candidates.map(() => worth),
        cost,
      );
    }
    counts[value] = (counts[value] ?? 0) + 1;
    total += value;
  }
  if (total <= budget) return undefined;
  let left = budget;
  let limit = Infinity;
  let atLimit = 0;
  for (let value = 0; value < counts.length; value++) {
    const lines = counts[value];
    if (lines === undefined) continue;
    if (lines * value <= left) {
      left -= lines * value;
      continue;
    }
    limit = value;
    atLimit = Math.floor(left / value);
    break;
  }
  const order: number[] = [];
  for (let at = 0; at < candidates.length; at++) {
    const index = candidates[at] as number;
    // Every candidate was costed above.
    const value = costs[index] as number;
    if (value < limit) order.push(index);
    else if (value === limit && atLimit > 0) {
      order.push(index);
      atLimit--;
    }
  }
  return order;
}

/** The candidates by worth per character, most first, ties in line order. */
function byWorthPerCharacter(
  candidates: readonly number[],
  worths: readonly number[],
  cost: (index: number) => number,
): number[] {
  const ratio: number[] = [];
  candidates.forEach((index, at) => {
    ratio[index] = (worths[at] as number) / cost(index);
  });
  return [...candidates].sort((a, b) => (ratio[b] as number) - (ratio[a] as number) || a - b);
}
