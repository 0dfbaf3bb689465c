/**
 * `12,345`: thousands separators without Intl, which is slow enough to show up in a pass that
 * masks thousands of outputs.
 */
export function formatCount(value: number): string {
  const rounded = String(Math.round(value));
  return rounded.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
