/**
 * A `/metrics` exposition text, parsed and scraped as Prometheus scrapes it: the target's `job`
 * and `instance` labels, an exposed label of either name kept with `honor_labels: true`, renamed
 * `exported_<name>` otherwise (part of prometheus-query.ts).
 */

import { parseNumber, type Sample } from './samples.js';

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
