/** Prometheus' `histogram_quantile` over classic buckets (part of prometheus-query.ts). */
import { labelsKey, parseNumber, withoutName, type Labels, type Sample } from './samples.js';
import type { Value } from './values.js';

/** Linear within the bucket, as Prometheus interpolates. */
export function histogramQuantile(quantile: number, samples: Sample[]): Value {
  const groups = new Map<string, { labels: Labels; buckets: Array<[number, number]> }>();
  for (const sample of samples) {
    const { le, ...labels } = withoutName(sample.labels);
    if (le === undefined) continue;
    const key = labelsKey(labels);
    const group = groups.get(key) ?? { labels, buckets: [] };
    group.buckets.push([parseNumber(le), sample.value]);
    groups.set(key, group);
  }
  return {
    kind: 'vector',
    samples: [...groups.values()].map(({ labels, buckets }) => ({
      labels,
      value: bucketQuantile(
        quantile,
        buckets.sort(([a], [b]) => a - b),
      ),
    })),
  };
}

function bucketQuantile(quantile: number, buckets: Array<[number, number]>): number {
  if (quantile < 0) return -Infinity;
  if (quantile > 1) return Infinity;
  const last = buckets.at(-1);
  if (buckets.length < 2 || !last || last[0] !== Infinity) return NaN;
  const observations = last[1];
  if (observations === 0) return NaN;
  let rank = quantile * observations;
  const index = buckets.findIndex(([, count]) => count >= rank);
  if (index === buckets.length - 1) return (buckets[buckets.length - 2] as [number, number])[0];
  const [end, endCount] = buckets[index] as [number, number];
  if (index === 0 && end <= 0) return end;
  let start = 0;
  let count = endCount;
  if (index > 0) {
    const [previous, previousCount] = buckets[index - 1] as [number, number];
    start = previous;
    count -= previousCount;
    rank -= previousCount;
  }
  return start + (end - start) * (rank / count);
}
