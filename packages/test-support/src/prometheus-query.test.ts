/**
 * The in-process PromQL subset the dashboard test evaluates its queries with: results checked by
 * hand against what Prometheus answers for the same one-scrape data.
 */
import { describe, expect, it } from 'vitest';
import { evaluate, labelsKey, parseExposition, scrape, type Sample } from './prometheus-query.js';

const TEXT = `# HELP requests_total Requests.
# TYPE requests_total counter
requests_total{model="a",instance="replica-1"} 3
requests_total{model="b",note="say \\"hi\\"\\n",instance="replica-1"} 1
# TYPE latency histogram
latency_bucket{le="1",instance="replica-1"} 2
latency_bucket{le="10",instance="replica-1"} 6
latency_bucket{le="+Inf",instance="replica-1"} 8
latency_count{instance="replica-1"} 8
`;

/** Results as `{labels} value` lines, sorted. */
function lines(samples: Sample[]): string[] {
  return samples.map(({ labels, value }) => `${labelsKey(labels)} ${value}`).sort();
}

describe('parseExposition', () => {
  it('reads names, escaped label values and special numbers', () => {
    const samples = parseExposition(`${TEXT}up NaN\ndown -Inf\n`);
    expect(samples[1]).toEqual({
      labels: { __name__: 'requests_total', model: 'b', note: 'say "hi"\n', instance: 'replica-1' },
      value: 1,
    });
    expect(samples.at(-2)?.value).toBeNaN();
    expect(samples.at(-1)?.value).toBe(-Infinity);
  });
});

describe('scrape', () => {
  it('renames an exposed instance to exported_instance unless labels are honored', () => {
    const [renamed] = scrape(TEXT, { job: 'gw', instance: '10.0.0.1:8787' });
    expect(renamed?.labels).toMatchObject({
      job: 'gw',
      instance: '10.0.0.1:8787',
      exported_instance: 'replica-1',
    });
    const [honored] = scrape(TEXT, { job: 'gw', instance: '10.0.0.1:8787', honorLabels: true });
    expect(honored?.labels).toMatchObject({ job: 'gw', instance: 'replica-1' });
    expect(honored?.labels).not.toHaveProperty('exported_instance');
  });
});

describe('evaluate', () => {
  const samples = scrape(TEXT, { job: 'gw', instance: 't:1' });

  it('aggregates by and without labels, before or after the argument', () => {
    expect(lines(evaluate('sum(requests_total)', samples))).toEqual(['{} 4']);
    expect(lines(evaluate('sum by (model) (requests_total{model=~"a|b"})', samples))).toEqual([
      '{model="a"} 3',
      '{model="b"} 1',
    ]);
    expect(lines(evaluate('count(requests_total) by (job)', samples))).toEqual(['{job="gw"} 2']);
    expect(
      lines(evaluate('sum without (instance, exported_instance, note) (requests_total)', samples)),
    ).toEqual(['{job="gw",model="a"} 3', '{job="gw",model="b"} 1']);
  });

  it('takes one scrape as counters that rose from zero within the range', () => {
    expect(lines(evaluate('sum(rate(requests_total{model="a"}[1m]))', samples))).toEqual([
      '{} 0.05',
    ]);
    expect(lines(evaluate('sum(increase(requests_total{model!="a"}[1h]))', samples))).toEqual([
      '{} 1',
    ]);
  });

  it('matches vectors one to one, and or fills in what is missing', () => {
    expect(
      lines(evaluate('sum by (model) (requests_total) / sum by (model) (requests_total)', samples)),
    ).toEqual(['{model="a"} 1', '{model="b"} 1']);
    expect(lines(evaluate('sum(missing_total) or vector(0)', samples))).toEqual(['{} 0']);
    expect(lines(evaluate('sum(requests_total) or vector(0)', samples))).toEqual(['{} 4']);
    expect(lines(evaluate('2 * sum(requests_total) + 1', samples))).toEqual(['{} 9']);
  });

  it('interpolates histogram quantiles within the bucket, as Prometheus does', () => {
    // 8 observations: rank 4 falls in (1, 10] holding 4 of them, 2 before it: 1 + 9 * 2/4.
    expect(
      lines(evaluate('histogram_quantile(0.5, sum by (le) (latency_bucket))', samples)),
    ).toEqual(['{} 5.5']);
    // Rank 7.6 is past the last finite bucket: its upper bound.
    expect(
      lines(evaluate('histogram_quantile(0.95, sum by (le) (latency_bucket))', samples)),
    ).toEqual(['{} 10']);
  });

  it('label_replace copies a label where its regex matches and leaves the rest', () => {
    const query =
      'sum by (replica) (label_replace(label_replace(requests_total, "replica", "$1", "instance", "(.*)"), "replica", "$1", "exported_instance", "(.+)"))';
    expect(lines(evaluate(query, samples))).toEqual(['{replica="replica-1"} 4']);
    const unnamed = scrape('requests_total{model="a"} 2\n', { job: 'gw', instance: 't:1' });
    expect(lines(evaluate(query, unnamed))).toEqual(['{replica="t:1"} 2']);
  });

  it('refuses what it does not know', () => {
    expect(() => evaluate('topk(1, requests_total)', samples)).toThrow(/topk/);
    expect(() => evaluate('sum(requests_total', samples)).toThrow();
  });
});
