/**
 * When each tool output was masked, and into what: a strategy wrapped by `observeMasking` records,
 * for every pass, the tool responses whose `response` object it replaced. Any strategy that masks
 * by replacing `functionResponse.response` in place (toolmask, gemini-cli) can be observed; the
 * engine's pricing is untouched.
 *
 * A request's contents are the session's flattened contents in order (strategies replace entries,
 * never add or drop them), so `contentIndex` is also the index in `flattenSession(session)`.
 */
import type { Content, Part, ReplayStrategy } from './types.js';

export interface MaskingMoment {
  /** Request (0-based, within the session) whose pass masked the output. */
  request: number;
  contentIndex: number;
  partIndex: number;
  /** The tool response as recorded. */
  original: Part;
  /** The tool response as the strategy sent it from then on. */
  masked: Part;
}

export interface ObservedStrategy {
  strategy: ReplayStrategy;
  /** Moments recorded so far for a session id, in the order they happened. */
  moments(sessionId: string): readonly MaskingMoment[];
}

function responseOf(part: Part | undefined): unknown {
  return part?.functionResponse?.response;
}

/** Tool responses of `after` whose response object differs from `before`'s, at the same place. */
function replacedResponses(
  before: readonly Content[],
  after: readonly Content[],
  request: number,
): MaskingMoment[] {
  const moments: MaskingMoment[] = [];
  const length = Math.min(before.length, after.length);
  for (let contentIndex = 0; contentIndex < length; contentIndex++) {
    const was = before[contentIndex] as Content;
    const now = after[contentIndex] as Content;
    if (was === now || was.parts === now.parts) continue;
    const parts = was.parts ?? [];
    parts.forEach((original, partIndex) => {
      const masked = now.parts?.[partIndex];
      if (!original?.functionResponse || !masked?.functionResponse) return;
      if (responseOf(original) === responseOf(masked)) return;
      moments.push({ request, contentIndex, partIndex, original, masked });
    });
  }
  return moments;
}

export function observeMasking(strategy: ReplayStrategy): ObservedStrategy {
  const bySession = new Map<string, MaskingMoment[]>();
  return {
    moments: (sessionId) => bySession.get(sessionId) ?? [],
    strategy: {
      name: strategy.name,
      async startSession(sessionId) {
        const session = await strategy.startSession(sessionId);
        const moments: MaskingMoment[] = [];
        bySession.set(sessionId, moments);
        let request = 0;
        return {
          async mask(history, pending, signal) {
            const outcome = await session.mask(history, pending, signal);
            moments.push(...replacedResponses([...history, pending], outcome.contents, request++));
            return outcome;
          },
        };
      },
    },
  };
}
