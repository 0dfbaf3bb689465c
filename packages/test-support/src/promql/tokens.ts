/**
 * A PromQL query as tokens: names, numbers, strings, durations (inside `[...]`) and punctuation
 * (part of prometheus-query.ts).
 */
export interface Token {
  kind: 'identifier' | 'number' | 'string' | 'duration' | 'punctuation';
  text: string;
}

const PUNCTUATION = ['!=', '=~', '!~', '(', ')', '{', '}', '[', ']', ',', '=', '+', '-', '*', '/'];

export function tokenize(query: string): Token[] {
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

/** `5m`, `1h30m`: the seconds of a range. */
export function durationSeconds(text: string): number {
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
