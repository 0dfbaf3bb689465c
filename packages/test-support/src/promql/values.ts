/**
 * What a PromQL expression evaluates to (`Value`), and the operators between values: aggregation
 * (`sum by (...)`), arithmetic (one to one on all labels, or with a scalar) and `or` (part of
 * prometheus-query.ts).
 */
import { labelsKey, withoutName, type Labels, type Sample } from './samples.js';

export type Value =
  | { kind: 'vector'; samples: Sample[] }
  | { kind: 'range'; samples: Sample[]; seconds: number }
  | { kind: 'scalar'; value: number }
  | { kind: 'string'; value: string };

/** The instant vector `value` must be, for `where` (a function or operator) to apply. */
export function vector(value: Value | undefined, where: string): Sample[] {
  if (value?.kind !== 'vector') throw new Error(`${where} needs an instant vector`);
  return value.samples;
}

/** A label matcher's or `label_replace`'s regex, anchored at both ends as in PromQL. */
export function anchored(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`);
}

export function aggregate(
  operator: string,
  samples: Sample[],
  grouping: { without: boolean; labels: string[] } | undefined,
): Value {
  const groups = new Map<string, { labels: Labels; values: number[] }>();
  for (const sample of samples) {
    const labels: Record<string, string> = {};
    for (const [name, value] of Object.entries(withoutName(sample.labels))) {
      const listed = grouping?.labels.includes(name) ?? false;
      if (grouping?.without ? !listed : listed) labels[name] = value;
    }
    const key = labelsKey(labels);
    const group = groups.get(key) ?? { labels, values: [] };
    group.values.push(sample.value);
    groups.set(key, group);
  }
  const combine: Record<string, (values: number[]) => number> = {
    sum: (values) => values.reduce((total, value) => total + value, 0),
    count: (values) => values.length,
    min: (values) => Math.min(...values),
    max: (values) => Math.max(...values),
    avg: (values) => values.reduce((total, value) => total + value, 0) / values.length,
  };
  return {
    kind: 'vector',
    samples: [...groups.values()].map(({ labels, values }) => ({
      labels,
      value: (combine[operator] as (values: number[]) => number)(values),
    })),
  };
}

function apply(op: string, left: number, right: number): number {
  if (op === '+') return left + right;
  if (op === '-') return left - right;
  if (op === '*') return left * right;
  return left / right;
}

export function arithmetic(op: string, left: Value, right: Value): Value {
  if (left.kind === 'scalar' && right.kind === 'scalar') {
    return { kind: 'scalar', value: apply(op, left.value, right.value) };
  }
  if (left.kind === 'scalar' || right.kind === 'scalar') {
    const scalar = left.kind === 'scalar' ? left.value : (right as { value: number }).value;
    const samples = vector(left.kind === 'scalar' ? right : left, op);
    return {
      kind: 'vector',
      samples: samples.map(({ labels, value }) => ({
        labels: withoutName(labels),
        value: left.kind === 'scalar' ? apply(op, scalar, value) : apply(op, value, scalar),
      })),
    };
  }
  const rightByLabels = new Map<string, Sample>();
  for (const sample of vector(right, op)) {
    const key = labelsKey(withoutName(sample.labels));
    if (rightByLabels.has(key)) throw new Error(`${op}: many-to-one matching on ${key}`);
    rightByLabels.set(key, sample);
  }
  const samples: Sample[] = [];
  for (const sample of vector(left, op)) {
    const labels = withoutName(sample.labels);
    const match = rightByLabels.get(labelsKey(labels));
    if (match) samples.push({ labels, value: apply(op, sample.value, match.value) });
  }
  return { kind: 'vector', samples };
}

export function union(left: Value, right: Value): Value {
  const leftSamples = vector(left, 'or');
  const seen = new Set(leftSamples.map((sample) => labelsKey(withoutName(sample.labels))));
  return {
    kind: 'vector',
    samples: [
      ...leftSamples,
      ...vector(right, 'or').filter((sample) => !seen.has(labelsKey(withoutName(sample.labels)))),
    ],
  };
}
