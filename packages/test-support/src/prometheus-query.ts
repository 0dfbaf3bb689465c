/**
 * Dashboard queries evaluated in-process, for tests without a Prometheus server: the exposition
 * text a `/metrics` endpoint serves, scraped as Prometheus scrapes it (the target's `job` and
 * `instance` labels; an exposed label of either name kept with `honor_labels: true`, renamed
 * `exported_<name>` otherwise), and an instant evaluation of a small subset of PromQL:
 *
 * - selectors with `=`, `!=`, `=~`, `!~` matchers (regexes anchored, as in PromQL) and a range;
 * - `rate` and `increase` over a range: one scrape taken as counters that rose from 0 within the
 *   range (`increase` = the value, `rate` = the value / the range's seconds);
 * - `sum`, `count`, `min`, `max`, `avg` with `by (...)` or `without (...)`, either before or
 *   after the argument;
 * - `histogram_quantile`, `label_replace`, `vector`;
 * - `+`, `-`, `*`, `/` (vector with vector one to one on all labels, or with a scalar) and `or`.
 *
 * Anything else throws, so a dashboard that uses more fails its test until this learns it.
 *
 * The parts, one job each, are in `promql/`: the exposition (`exposition.ts`), tokens, the
 * grammar (`parser.ts`), the values and operators (`values.ts`), the functions and
 * `histogram_quantile`.
 */
import { Parser } from './promql/parser.js';
import type { Sample } from './promql/samples.js';
import { tokenize } from './promql/tokens.js';

export { parseExposition, scrape, type ScrapeTarget } from './promql/exposition.js';
export { labelsKey, type Labels, type Sample } from './promql/samples.js';

/** Evaluates `query` at one instant over `samples` (Grafana's variables already substituted). */
export function evaluate(query: string, samples: readonly Sample[]): Sample[] {
  const parser = new Parser(tokenize(query), samples);
  const result = parser.expression();
  parser.end();
  if (result.kind === 'scalar') return [{ labels: {}, value: result.value }];
  if (result.kind !== 'vector') throw new Error(`${query}: not an instant vector or scalar`);
  return result.samples;
}
