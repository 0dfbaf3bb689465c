/**
 * Ascending arrays of distinct numbers (entry indices): the position of a value by binary search,
 * and an insertion that keeps the array sorted and each value once.
 */

/** Index of the first element of ascending `values` at or above `value`. */
export function lowerBound(values: readonly number[], value: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((values[middle] as number) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Inserts `value` where it keeps `values` ascending, unless it is there already. */
export function insertSorted(values: number[], value: number): void {
  const at = lowerBound(values, value);
  if (values[at] !== value) values.splice(at, 0, value);
}
