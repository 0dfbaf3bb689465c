/**
 * Every tool output masked as early as a policy could: at the first request after the one that
 * sent it. Measuring information kept on these moments (information-kept.ts) compares previews
 * themselves, on every output and every later use, whatever a schedule would have masked. An
 * output the strategy leaves whole (its snippet would not be smaller, or not worth it) is a
 * moment too, with `masked` the recorded part itself: all of it stays visible, at its full size.
 *
 * Each output is masked by the strategy on its own, in a fresh session holding just that output,
 * the model turn that made its call (the call's arguments and the model's text, which a preview
 * may read: the pass has them in a real history) and the model turn that followed it, so a
 * strategy that rewrites files on every pass (gemini-cli writes one for each output it then
 * leaves whole) costs one pass per output, not a pass per output per request. The strategy must
 * mask every output older than the latest turn (a zero protection window and no minimum). Its
 * output folder is named after the session and content.
 */
import { findRequestPoints, flattenSession } from '../request-points.js';
import { observeMasking, type MaskingMoment } from '../masking-moments.js';
import type { Content, ReplaySession, ReplayStrategy } from '../types.js';

const FOLLOW_UP: Content = { role: 'user', parts: [{ text: 'Continue.' }] };
const MODEL_TURN: Content = { role: 'model', parts: [{ text: 'Done.' }] };

function hasToolOutput(content: Content): boolean {
  return (content.parts ?? []).some((part) => part.functionResponse);
}

export async function earlyMaskingMoments(
  session: ReplaySession,
  strategy: ReplayStrategy,
): Promise<MaskingMoment[]> {
  const flat = flattenSession(session);
  const points = findRequestPoints(flat);
  const moments: MaskingMoment[] = [];
  for (const [request, point] of points.entries()) {
    if (request + 1 >= points.length) break;
    // Outputs first sent by this request: its pending content and the user contents before it.
    for (let index = point.index; index >= 0; index--) {
      const content = (flat[index] as { content: Content }).content;
      if (content.role === 'model') break;
      if (!hasToolOutput(content)) continue;
      const next = flat[index + 1]?.content;
      const previous = flat[index - 1]?.content;
      const calls = previous?.role === 'model' ? [previous] : [];
      const observed = observeMasking(strategy);
      const run = await observed.strategy.startSession(`${session.id}-c${index}`);
      await run.mask([...calls, content, next?.role === 'model' ? next : MODEL_TURN], FOLLOW_UP, {
        cacheLikelyCold: true,
      });
      const masked = observed.moments(`${session.id}-c${index}`);
      (content.parts ?? []).forEach((part, partIndex) => {
        if (!part.functionResponse) return;
        const moment = masked.find(
          (m) => m.contentIndex === calls.length && m.partIndex === partIndex,
        );
        moments.push({
          request: request + 1,
          contentIndex: index,
          partIndex,
          original: part,
          masked: moment?.masked ?? part,
        });
      });
    }
  }
  return moments;
}
