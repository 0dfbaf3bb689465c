/**
 * Outputs whose queued write failed (state/outputs/queued-output-store.ts), saved again from the
 * next request of their conversation: the client resends every output whole, so the text is
 * there. The request's entries are read only when one of this gateway's writes has failed; an
 * output is found by its key in the decision log (the same key whatever request carries it), and
 * saved under the name its snippet gave it (the text, and so its content-addressed name, is the
 * same). The new write is queued like any other: the request does not wait for it.
 */
import * as path from 'node:path';
import type { Content } from '@toolmask/core';
import { fullOutputText, type ToolOutputStore } from '@toolmask/core/storage';
import { isPlainObject } from '@toolmask/core/utils';
import type { EventLoopPauser } from '@toolmask/core/utils';
import type { FailedOutputWrites } from '../state/outputs/queued-output-store.js';
import type { DecisionLog } from './decision-log.js';
import { outputKey } from './output-key.js';

/** Saves again every output of `incoming` whose write failed; how many were queued again. */
export async function rewriteFailedOutputs(
  incoming: readonly Content[],
  log: DecisionLog,
  outputs: ToolOutputStore & FailedOutputWrites,
  pause: EventLoopPauser,
): Promise<number> {
  if (outputs.failedCount === 0) return 0;
  let rewritten = 0;
  for (const content of incoming) {
    if (pause.due()) await pause();
    for (const part of content?.parts ?? []) {
      const functionResponse = part?.functionResponse;
      const response: unknown = functionResponse?.response;
      if (!functionResponse || !isPlainObject(response)) continue;
      const filePath = log.savedFileOf(outputKey(functionResponse));
      if (filePath === undefined || !outputs.isFailed(filePath)) continue;
      try {
        await outputs.save(path.dirname(filePath), path.basename(filePath), fullOutputText(response));
        rewritten++;
      } catch {
        // Counted by the store; the next request tries again.
      }
    }
  }
  return rewritten;
}
