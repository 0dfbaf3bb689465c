/**
 * How far back an agent reaches for what it reuses: for each line of a tool output that a later
 * model turn of the same task quotes (quoted-lines.ts), the tokens of tool output sent after that
 * output and before the last turn that quotes it. A window that keeps that many tokens of the
 * newest outputs whole keeps the line visible for as long as the agent uses it; the distribution
 * is what a protection window is chosen against.
 */
import { flattenSession } from '../request-points.js';
import { defaultContentTokenCounter, type ContentTokenCounter } from '../content-meter.js';
import type { ReplaySession } from '../types.js';
import { SessionQuotes, candidateLines, responseText } from './quoted-lines.js';

/** Per quoted line (each once per output), the tokens of newer tool output it reaches across. */
export function reachBacks(
  session: ReplaySession,
  countTokens: ContentTokenCounter = defaultContentTokenCounter,
): number[] {
  const flat = flattenSession(session);
  const quotes = new SessionQuotes(flat);
  // outputTokensBefore[k]: tokens of tool output in contents 0..k-1.
  const outputTokensBefore = [0];
  for (const { content } of flat) {
    const outputs = (content.parts ?? []).filter((part) => part.functionResponse);
    const tokens = outputs.length > 0 ? countTokens({ role: content.role, parts: outputs }) : 0;
    outputTokensBefore.push((outputTokensBefore.at(-1) as number) + tokens);
  }
  const reaches: number[] = [];
  flat.forEach(({ content, task }, index) => {
    for (const part of content.parts ?? []) {
      if (!part.functionResponse) continue;
      for (const line of candidateLines(responseText(part))) {
        const quotedAt = quotes.lastQuote(line, task);
        if (quotedAt <= index) continue;
        reaches.push(
          (outputTokensBefore[quotedAt] as number) - (outputTokensBefore[index + 1] as number),
        );
      }
    }
  });
  return reaches;
}

/** The value below which `fraction` of `sorted` (ascending) lies. */
export function quantile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] as number;
}
