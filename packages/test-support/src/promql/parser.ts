/**
 * PromQL's grammar, the subset the dashboards use: `or` below `+ -` below `* /`, parentheses,
 * numbers and strings, aggregations with `by`/`without` before or after the argument, function
 * calls, and selectors with matchers and a range (part of prometheus-query.ts).
 */
import { callFunction } from './functions.js';
import type { Labels, Sample } from './samples.js';
import { durationSeconds, type Token } from './tokens.js';
import { aggregate, anchored, arithmetic, union, vector, type Value } from './values.js';

const AGGREGATIONS = new Set(['sum', 'count', 'min', 'max', 'avg']);

/** A recursive-descent parser that evaluates as it parses (one instant, no plan). */
export class Parser {
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
    return callFunction(name, args);
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
