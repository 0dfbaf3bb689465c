/**
 * Trying each output a plan names: its masked form (maskedForm.ts), the worth rule
 * (worthMasking.ts), then its full text saved through the store, a few outputs at a time. Each
 * attempt ends masked (the new part and what was offloaded), skipped (not worth a snippet: left
 * whole, no file written, and no longer counted) or failed (left whole, with a code: `MALFORMED`,
 * `SERIALIZE`, the store's errno, `EPATH`, `INTERNAL`). Whatever one output throws, the others go
 * on; an aborted pass stops taking new outputs. Thousands of small outputs take no I/O turn of
 * their own, so the loop gets one between them when the pass's stretch has run its time.
 */
import type { OutputRef } from '../maskingPlan.js';
import type {
  Content,
  MaskingFailure,
  OffloadedOutput,
  Part,
  SupersededBy,
} from '../maskingTypes.js';
import type { Supersession } from '../superseded/supersession.js';
import type { ToolOutputStore } from '../../storage/toolOutputStore.js';
import type { EventLoopPauser } from '../../utils/eventLoop.js';
import { describeError, errorCode, isPlainObject } from '../../utils/safeCall.js';
import { maskedForm, outputHeader, supersessionNote, type PreviewSettings } from './maskedForm.js';
import type { ResponseRecords } from './responseRecords.js';
import { fullOutputText } from './savedText.js';
import { snippetTokensFloor } from './snippetFloor.js';
import { isWorthMasking } from './worthMasking.js';

/** Where one pass writes and what its snippets name: the same for every output of the pass. */
export interface PassTarget {
  directory: string;
  readToolName: string | undefined;
  searchToolName: string | undefined;
  signal: AbortSignal | undefined;
  /** The pass's turns for the event loop. */
  pause: EventLoopPauser;
}

/** What an attempt needs of the service: its store, its knobs and its record of responses. */
export interface AttemptSettings extends PreviewSettings {
  store: ToolOutputStore;
  responses: ResponseRecords;
  estimateResponseTokens: (response: unknown) => number;
  minSavedTokens: number;
  maxKeptRatio: number;
  /** Outputs tried at once. */
  writeConcurrency: number;
}

/** A masked output: where it was, its new part, and what was offloaded. */
export interface MaskedPart {
  ref: OutputRef;
  part: Part;
  offloaded: OffloadedOutput;
}

export type AttemptResult =
  | { kind: 'masked'; value: MaskedPart }
  | { kind: 'skipped'; ref: OutputRef }
  | { kind: 'failed'; value: MaskingFailure };

/** What a result tells of a superseded output: the reason and the later call's id. */
function supersededBy(supersession: Supersession): SupersededBy {
  return {
    reason: supersession.reason,
    ...(supersession.callId !== undefined ? { callId: supersession.callId } : {}),
  };
}

/** Tries every target, `writeConcurrency` at a time; the results in the targets' order. */
export async function attemptAll(
  history: readonly Content[],
  targets: readonly OutputRef[],
  pass: PassTarget,
  settings: AttemptSettings,
): Promise<AttemptResult[]> {
  const { signal, pause } = pass;
  const results: AttemptResult[] = new Array(targets.length);
  let next = 0;
  const worker = async () => {
    while (next < targets.length && !signal?.aborted) {
      // Thousands of small outputs take no I/O turn of their own (each is too small to write):
      // the loop gets one between them when the stretch has run its time.
      if (pause.due()) await pause();
      if (next >= targets.length || signal?.aborted) break;
      const index = next++;
      const ref = targets[index] as OutputRef;
      try {
        results[index] = await attempt(history, ref, pass, settings);
      } catch (error) {
        // Whatever one output throws (a getter read twice, a proxy), the others go on.
        results[index] = {
          kind: 'failed',
          value: {
            toolName: '',
            callId: '',
            code: errorCode(error, 'INTERNAL'),
            message: `entry ${ref.contentIndex} part ${ref.partIndex}: ${describeError(error)}`,
          },
        };
      }
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(settings.writeConcurrency, targets.length) }, worker),
  );
  return results.filter((result) => result !== undefined);
}

/** One output: masked, skipped or failed (see the module comment). */
async function attempt(
  history: readonly Content[],
  ref: OutputRef,
  pass: PassTarget,
  settings: AttemptSettings,
): Promise<AttemptResult> {
  const part = history[ref.contentIndex]?.parts?.[ref.partIndex];
  const functionResponse = part?.functionResponse;
  const toolName = typeof functionResponse?.name === 'string' ? functionResponse.name : 'unknown';
  const callId = typeof functionResponse?.id === 'string' ? functionResponse.id : '';
  const fail = (code: string, message: string): AttemptResult => ({
    kind: 'failed',
    value: { toolName, callId, code, message },
  });
  const response: unknown = functionResponse?.response;
  if (!part || !functionResponse || !isPlainObject(response))
    return fail('MALFORMED', 'not a function response');

  let text: string;
  try {
    text = fullOutputText(response, toolName);
  } catch (error) {
    return fail('SERIALIZE', describeError(error));
  }
  const output = { toolName, callId, functionResponse, response, text };
  const header = await outputHeader(output, pass.directory);
  const worth = (tokensAfter: number) =>
    isWorthMasking(ref.tokens, tokensAfter, settings.minSavedTokens, settings.maxKeptRatio);
  // Not worth it (not smaller, or too little saved for what the model loses): leave it whole
  // and write nothing. Most outputs that are not are told so before their preview is built: the
  // rule turns down a floor of the snippet's tokens (snippetFloor.ts) only when it would turn
  // down every snippet above it.
  const note = supersessionNote(ref);
  const floor = snippetTokensFloor(
    settings.estimateResponseTokens,
    {
      lines: header.lines,
      bytes: header.bytes,
      filePath: header.filePath,
      ...(note ? { note } : {}),
    },
    pass.readToolName,
    pass.searchToolName,
  );
  const skipped = (): AttemptResult => {
    settings.responses.keepWhole(response);
    return { kind: 'skipped', ref };
  };
  if (floor !== undefined && !worth(floor)) return skipped();
  const masked = await maskedForm(history, ref, output, header, pass, settings);
  const tokensAfter = settings.estimateResponseTokens(masked.response);
  if (!worth(tokensAfter)) return skipped();

  const { fileName, filePath, bytes } = masked;
  try {
    const savedPath = await settings.store.save(pass.directory, fileName, text, bytes);
    if (savedPath !== filePath)
      return fail('EPATH', `store saved to ${savedPath}, expected ${filePath}`);
  } catch (error) {
    return fail(errorCode(error, 'EWRITE'), describeError(error));
  }
  settings.responses.markMasked(masked.response);
  const maskedPart: Part = {
    ...part,
    functionResponse: { ...functionResponse, response: masked.response },
  };
  const offloaded: OffloadedOutput = {
    toolName,
    callId,
    filePath,
    bytes,
    tokensBefore: ref.tokens,
    tokensAfter,
    ...(ref.superseded ? { superseded: supersededBy(ref.superseded) } : {}),
  };
  return { kind: 'masked', value: { ref, part: maskedPart, offloaded } };
}
