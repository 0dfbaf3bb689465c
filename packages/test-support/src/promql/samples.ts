/**
 * The in-process PromQL's data: a series at one instant (`Sample`), its labels, and how
 * labels and numbers are read and compared the way Prometheus does (part of prometheus-query.ts).
 */
export type Labels = Readonly<Record<string, string>>;

/** One series at one instant; `labels.__name__` is its name, where it still has one. */
export interface Sample {
  labels: Labels;
  value: number;
}

/** `labels` as one sorted string (`{a="1",b="2"}`), to compare or sort results. */
export function labelsKey(labels: Labels): string {
  const pairs = Object.entries(labels)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${JSON.stringify(value)}`);
  return `{${pairs.join(',')}}`;
}

/** The labels without the metric name, as every function and operator leaves them. */
export function withoutName(labels: Labels): Labels {
  const { __name__: _name, ...rest } = labels;
  return rest;
}

/** A sample value or a bucket bound as the exposition format writes it (`+Inf`, `NaN`). */
export function parseNumber(text: string): number {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  const value = Number(text);
  if (text === '' || Number.isNaN(value)) throw new Error(`not a number: ${text}`);
  return value;
}
