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
 */

export type Labels = Readonly<Record<string, string>>;

/** One series at one instant; `labels.__name__` is its name, where it still has one. */
export interface Sample {
  labels: Labels;
  value: number;
}

export interface ScrapeTarget {
  job: string;
  /** The target's address, `host:port`. */
  instance: string;
  /** Prometheus' `honor_labels`. @default false */
  honorLabels?: boolean;
}

/** The samples of a Prometheus text exposition (comments and blank lines skipped). */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0];
    if (!name) throw new Error(`not a sample: ${line}`);
    const labels: Record<string, string> = { __name__: name };
    let at = name.length;
    if (line[at] === '{') {
      at += 1;
      while (line[at] !== '}') {
        const label = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"/.exec(line.slice(at));
        if (!label) throw new Error(`bad labels: ${line}`);
        at += label[0].length;
        let value = '';
        while (line[at] !== '"') {
          if (at >= line.length) throw new Error(`unterminated label value: ${line}`);
          if (line[at] === '\\') {
            const escaped = line[at + 1];
            value += escaped === 'n' ? '\n' : (escaped ?? '');
            at += 2;
          } else {
            value += line[at];
            at += 1;
          }
        }
        labels[label[1] as string] = value;
        at += 1;
        if (line[at] === ',') at += 1;
      }
      at += 1;
    }
    const [value] = line.slice(at).trim().split(/\s+/);
    samples.push({ labels, value: parseNumber(value ?? '') });
  }
  return samples;
}

/** What Prometheus stores of one scrape of `text` from `target`. */
export function scrape(text: string, target: ScrapeTarget): Sample[] {
  return parseExposition(text).map(({ labels, value }) => {
    const stored: Record<string, string> = { ...labels };
    for (const name of ['job', 'instance'] as const) {
      if (stored[name] !== undefined && !target.honorLabels) {
        stored[`exported_${name}`] = stored[name];
        delete stored[name];
      }
      stored[name] ??= target[name];
    }
    return { labels: stored, value };
  });
}

/** Evaluates `query` at one instant over `samples` (Grafana's variables already substituted). */
export function evaluate(query: string, samples: readonly Sample[]): Sample[] {
  const parser = new Parser(tokenize(query), samples);
  const result = parser.expression();
  parser.end();
  if (result.kind === 'scalar') return [{ labels: {}, value: result.value }];
  if (result.kind !== 'vector') throw new Error(`${query}: not an instant vector or scalar`);
  return result.samples;
}

/** `labels` as one sorted string (`{a="1",b="2"}`), to compare or sort results. */
export function labelsKey(labels: Labels): string {
  const pairs = Object.entries(labels)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${JSON.stringify(value)}`);
  return `{${pairs.join(',')}}`;
}

type Value =
  | { kind: 'vector'; samples: Sample[] }
  | { kind: 'range'; samples: Sample[]; seconds: number }
  | { kind: 'scalar'; value: number }
  | { kind: 'string'; value: string };

interface Token {
  kind: 'identifier' | 'number' | 'string' | 'duration' | 'punctuation';
  text: string;
}

const PUNCTUATION = ['!=', '=~', '!~', '(', ')', '{', '}', '[', ']', ',', '=', '+', '-', '*', '/'];
const AGGREGATIONS = new Set(['sum', 'count', 'min', 'max', 'avg']);

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < query.length) {
    const rest = query.slice(at);
    const space = /^\s+/.exec(rest);
    if (space) {
      at += space[0].length;
      continue;
    }
    if (tokens.at(-1)?.text === '[') {
      const duration = /^[^\]]+/.exec(rest)?.[0] ?? '';
      tokens.push({ kind: 'duration', text: duration.trim() });
      at += duration.length;
      continue;
    }
    const quote = rest[0];
    if (quote === '"' || quote === "'") {
      let value = '';
      let end = 1;
      while (rest[end] !== quote) {
        if (end >= rest.length) throw new Error(`unterminated string in ${query}`);
        if (rest[end] === '\\') {
          const escaped = rest[end + 1];
          value += escaped === 'n' ? '\n' : (escaped ?? '');
          end += 2;
        } else {
          value += rest[end];
          end += 1;
        }
      }
      tokens.push({ kind: 'string', text: value });
      at += end + 1;
      continue;
    }
    const number = /^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(rest);
    if (number) {
      tokens.push({ kind: 'number', text: number[0] });
      at += number[0].length;
      continue;
    }
    const identifier = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(rest);
    if (identifier) {
      tokens.push({ kind: 'identifier', text: identifier[0] });
      at += identifier[0].length;
      continue;
    }
    const punctuation = PUNCTUATION.find((candidate) => rest.startsWith(candidate));
    if (!punctuation) throw new Error(`unexpected ${JSON.stringify(rest[0])} in ${query}`);
    tokens.push({ kind: 'punctuation', text: punctuation });
    at += punctuation.length;
  }
  return tokens;
}

class Parser {
  private at = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly samples: readonly Sample[],
  ) {}

  end(): void {
    if (this.at < this.tokens.length) throw new Error(`unexpected ${this.peek()?.text}`);
  }

  expression(): Value {
    let left = this.additive();
    while (this.accept('or')) left = union(left, this.additive());
    return left;
  }

  private additive(): Value {
    let left = this.multiplicative();
    for (let op = this.acceptOne('+', '-'); op; op = this.acceptOne('+', '-')) {
      left = arithmetic(op, left, this.multiplicative());
    }
    return left;
  }

  private multiplicative(): Value {
    let left = this.primary();
    for (let op = this.acceptOne('*', '/'); op; op = this.acceptOne('*', '/')) {
      left = arithmetic(op, left, this.primary());
    }
    return left;
  }

  private primary(): Value {
    const token = this.next();
    if (token.kind === 'number') return { kind: 'scalar', value: Number(token.text) };
    if (token.kind === 'string') return { kind: 'string', value: token.text };
    if (token.text === '(') {
      const inner = this.expression();
      this.expect(')');
      return inner;
    }
    if (token.kind !== 'identifier') throw new Error(`unexpected ${token.text}`);
    if (AGGREGATIONS.has(token.text)) return this.aggregation(token.text);
    if (this.peek()?.text === '(') return this.call(token.text);
    return this.selector(token.text);
  }

  private aggregation(operator: string): Value {
    let grouping = this.grouping();
    this.expect('(');
    const argument = this.expression();
    this.expect(')');
    grouping ??= this.grouping();
    return aggregate(operator, vector(argument, operator), grouping);
  }

  private grouping(): { without: boolean; labels: string[] } | undefined {
    const keyword = this.acceptOne('by', 'without');
    if (!keyword) return undefined;
    this.expect('(');
    const labels: string[] = [];
    while (!this.accept(')')) {
      labels.push(this.next().text);
      this.accept(',');
    }
    return { without: keyword === 'without', labels };
  }

  private call(name: string): Value {
    this.expect('(');
    const args: Value[] = [];
    while (!this.accept(')')) {
      args.push(this.expression());
      this.accept(',');
    }
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
      case 'increase': {
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

  private selector(name: string): Value {
    const matchers: Array<(labels: Labels) => boolean> = [(labels) => labels.__name__ === name];
    if (this.accept('{')) {
      while (!this.accept('}')) {
        const label = this.next().text;
        const op = this.next().text;
        const value = this.next();
        if (value.kind !== 'string') throw new Error(`${label}${op}: a string must follow`);
        const regex = anchored(value.text);
        const test: Record<string, (actual: string) => boolean> = {
          '=': (actual) => actual === value.text,
          '!=': (actual) => actual !== value.text,
          '=~': (actual) => regex.test(actual),
          '!~': (actual) => !regex.test(actual),
        };
        const check = test[op];
        if (!check) throw new Error(`matcher ${op} is not supported`);
        matchers.push((labels) => check(labels[label] ?? ''));
        this.accept(',');
      }
    }
    const samples = this.samples.filter((sample) =>
      matchers.every((matches) => matches(sample.labels)),
    );
    if (this.accept('[')) {
      const duration = this.next();
      this.expect(']');
      return { kind: 'range', samples, seconds: durationSeconds(duration.text) };
    }
    return { kind: 'vector', samples };
  }

  private peek(): Token | undefined {
    return this.tokens[this.at];
  }

  private next(): Token {
    const token = this.tokens[this.at];
    if (!token) throw new Error('unexpected end of query');
    this.at += 1;
    return token;
  }

  private accept(text: string): boolean {
    if (this.peek()?.text !== text) return false;
    this.at += 1;
    return true;
  }

  private acceptOne(...texts: string[]): string | undefined {
    return texts.find((text) => this.accept(text));
  }

  private expect(text: string): void {
    if (!this.accept(text))
      throw new Error(`expected ${text}, found ${this.peek()?.text ?? 'end'}`);
  }
}

function parseNumber(text: string): number {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  const value = Number(text);
  if (text === '' || Number.isNaN(value)) throw new Error(`not a number: ${text}`);
  return value;
}

function durationSeconds(text: string): number {
  const units: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };
  let seconds = 0;
  let rest = text;
  while (rest !== '') {
    const part = /^(\d+)(ms|s|m|h|d|w)/.exec(rest);
    if (!part) throw new Error(`not a duration: ${text}`);
    seconds += Number(part[1]) * (units[part[2] as string] as number);
    rest = rest.slice(part[0].length);
  }
  return seconds;
}

function anchored(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`);
}

function withoutName(labels: Labels): Labels {
  const { __name__: _name, ...rest } = labels;
  return rest;
}

function vector(value: Value | undefined, where: string): Sample[] {
  if (value?.kind !== 'vector') throw new Error(`${where} needs an instant vector`);
  return value.samples;
}

function aggregate(
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

function arithmetic(op: string, left: Value, right: Value): Value {
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

function union(left: Value, right: Value): Value {
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

/** Prometheus' `histogram_quantile` over classic buckets (linear within the bucket). */
function histogramQuantile(quantile: number, samples: Sample[]): Value {
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
