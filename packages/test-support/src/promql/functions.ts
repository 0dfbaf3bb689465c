/**
 * The PromQL functions the dashboards call: `rate`, `increase` and `delta` (of a gauge) over a
 * range (one scrape taken as series that rose, or fell, from 0 within the range: `increase` and
 * `delta` = the value, `rate` = the value / the range's seconds), `vector`, `histogram_quantile` and `label_replace` (part of
 * prometheus-query.ts). Any other throws.
 */
import { histogramQuantile } from './histogram.js';
import { withoutName } from './samples.js';
import { anchored, vector, type Value } from './values.js';

/** `name(args...)`, its arguments evaluated. */
export function callFunction(name: string, args: Value[]): Value {
  const scalarArg = (index: number): number => {
    const arg = args[index];
    if (arg?.kind !== 'scalar') throw new Error(`${name}: argument ${index + 1} is no number`);
    return arg.value;
  };
  const stringArg = (index: number): string => {
    const arg = args[index];
    if (arg?.kind !== 'string') throw new Error(`${name}: argument ${index + 1} is no string`);
    return arg.value;
  };
  switch (name) {
    case 'rate':
    case 'increase':
    case 'delta': {
      const range = args[0];
      if (range?.kind !== 'range') throw new Error(`${name} needs a range selector`);
      const divisor = name === 'rate' ? range.seconds : 1;
      return {
        kind: 'vector',
        samples: range.samples.map(({ labels, value }) => ({
          labels: withoutName(labels),
          value: value / divisor,
        })),
      };
    }
    case 'vector':
      return { kind: 'vector', samples: [{ labels: {}, value: scalarArg(0) }] };
    case 'histogram_quantile':
      return histogramQuantile(scalarArg(0), vector(args[1], name));
    case 'label_replace': {
      const [destination, replacement, source, pattern] = [1, 2, 3, 4].map(stringArg) as [
        string,
        string,
        string,
        string,
      ];
      const regex = anchored(pattern);
      return {
        kind: 'vector',
        samples: vector(args[0], name).map(({ labels, value }) => {
          const match = regex.exec(labels[source] ?? '');
          if (!match) return { labels, value };
          const replaced = replacement.replace(/\$(\d+)/g, (_, group: string) => {
            return match[Number(group)] ?? '';
          });
          const next: Record<string, string> = { ...labels, [destination]: replaced };
          if (replaced === '') delete next[destination];
          return { labels: next, value };
        }),
      };
    }
    default:
      throw new Error(`function ${name} is not supported`);
  }
}
