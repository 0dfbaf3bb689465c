/**
 * The masking pass as a request middleware, free of any host: every host (the gemini-cli
 * installation, the CLI's replay, the gateway) turns its request into a history and the content
 * being sent, calls `transformRequest`, and sends what comes back. The rules of when and what to
 * mask around the pass live here, once:
 *
 * - **The request being sent.** When it carries tool responses (the newest `functionResponse`
 *   parts), it goes into the pass as the latest turn: protected like the latest turn always is,
 *   except that an output above `maxOutputTokens` (the guard) is offloaded before it is ever sent.
 *   A text prompt is not passed in (nothing in it can be masked).
 * - **The cold-cache signal.** A new text prompt more than the idle gap after the previous request
 *   of this conversation ended finds the provider's prompt cache most likely expired, so the pass
 *   may mask everything prunable at no cache cost. A host that knows more (the provider reported
 *   no cached tokens) says so with `cacheLikelyCold`. The idle gap is the middleware's `idleGapMs`
 *   when the host set one, else the request's provider's (`cache.idleGapMs`), else 5 minutes.
 * - **The provider's cache.** A request's `cache` (its provider's economics) goes to the pass,
 *   whose warm trigger weighs a cache break at those prices (cacheEconomics.ts).
 * - **The notice.** After a pass that masked something, `onNotice` gets one line for the person.
 *
 * What changes per request comes with the request (`config`, `readToolName`, as the AI SDK's
 * `transformParams` and gemini-cli's `mask(history, config)` take theirs); the host gives only
 * what is stable (the session and its folder, and the settings a request without its own uses).
 *
 * One middleware serves one conversation (its idle gap is that conversation's); several may share
 * one `ToolOutputMaskingService`. `transformRequest` never throws: on any failure the request goes
 * out as it came.
 */
import type { Content, MaskingHost, MaskingResult, Part } from './maskingTypes.js';
import type { ToolOutputMaskingConfig } from '../config/toolOutputMaskingSettings.js';
import type { ToolOutputMaskingService } from './toolOutputMaskingService.js';
import { describeError, safeCall, safeSink } from '../utils/safeCall.js';
import { DEFAULT_IDLE_GAP_MS, type CacheEconomics } from './cacheEconomics.js';
import { unchangedResult } from './maskingPass/passResult.js';

export { DEFAULT_IDLE_GAP_MS };

export interface MaskingMiddlewareOptions {
  /**
   * What stays the same across requests: the session id and its output folder, and the settings
   * a request falls back to when it brings none (`MaskingRequest.config`).
   */
  host: MaskingHost;
  /**
   * Idle time after which a new text prompt counts as cache-cold, whatever the request's provider.
   * @default the request's `cache.idleGapMs`, else 5 minutes
   */
  idleGapMs?: number;
  /** Let the pass see (and offload a giant output of) the request being sent. @default true */
  maskPendingRequest?: boolean;
  /** One line for the person after each pass that masked something. */
  onNotice?: (notice: string, result: MaskingResult) => void;
  /** Debug lines (a pass skipped after an unexpected error). */
  debug?: (message: string) => void;
  /** Test seams. */
  _internal?: {
    /** Milliseconds clock for the idle gap. @default Date.now */
    now?: () => number;
  };
}

export interface MaskingRequest {
  /** The conversation so far, without the content being sent. */
  history: readonly Content[];
  /** The content being sent (a user prompt, or the tool responses of the last model turn). */
  request: Content;
  /** The turn's abort signal. */
  signal?: AbortSignal;
  /** The host knows the prompt cache is cold for a reason of its own. */
  cacheLikelyCold?: boolean;
  /** This request's masking settings, when the host reads them per request. @default the host's */
  config?: ToolOutputMaskingConfig;
  /** The read-back tool as this request names it to the model (named in new snippets). */
  readToolName?: string;
  /** The search tool as this request names it to the model (named in new snippets beside it). */
  searchToolName?: string;
  /**
   * The cache economics of the provider this request goes to (its idle gap, and the prices the
   * warm trigger weighs). @default the service's (Gemini's)
   */
  cache?: Readonly<CacheEconomics>;
}

export interface MaskedRequest {
  /** The history to send: the input array when nothing in it changed. */
  history: readonly Content[];
  /** The content to send: the input object when nothing in it changed. */
  request: Content;
  result: MaskingResult;
  /** Whether the pass was told the cache is most likely cold. */
  cacheLikelyCold: boolean;
  /** Tool responses of the request being sent that were offloaded before sending. */
  requestPartsMasked: number;
}

export interface MaskingMiddleware {
  /** Runs the pass before one request. Never throws. */
  transformRequest(input: MaskingRequest): Promise<MaskedRequest>;
  /**
   * Call when the answer to the request has ended: the idle gap counts from here (`at`, epoch
   * ms, restores a time the host kept, e.g. across a restart; default now).
   */
  requestEnded(at?: number): void;
}

function hasFunctionResponse(content: Content): boolean {
  return Array.isArray(content.parts) && content.parts.some((part) => !!part?.functionResponse);
}

/** A user prompt with text and no tool responses: where a person comes back after a pause. */
export function isTextPrompt(content: Content): boolean {
  const parts: readonly Part[] = Array.isArray(content.parts) ? content.parts : [];
  return (
    content.role !== 'model' &&
    parts.some((part) => typeof part?.text === 'string' && part.text.length > 0) &&
    !parts.some((part) => part?.functionResponse)
  );
}

export function createMaskingMiddleware(
  service: ToolOutputMaskingService,
  options: MaskingMiddlewareOptions,
): MaskingMiddleware {
  const now = options._internal?.now ?? Date.now;
  // The host's own idle gap, when it set one, wins over the provider's.
  const idleGapOf = (input: MaskingRequest) =>
    Math.max(0, options.idleGapMs ?? input.cache?.idleGapMs ?? DEFAULT_IDLE_GAP_MS);
  const maskPending = options.maskPendingRequest !== false;
  const debug = safeSink(options.debug);
  let lastRequestEnded: number | undefined;

  async function transformRequest(input: MaskingRequest): Promise<MaskedRequest> {
    const { history, request } = input;
    let cacheLikelyCold = input.cacheLikelyCold === true;
    try {
      cacheLikelyCold ||=
        isTextPrompt(request) &&
        lastRequestEnded !== undefined &&
        now() - lastRequestEnded > idleGapOf(input);
      const pending = maskPending && hasFunctionResponse(request);
      const passInput = pending ? [...history, request] : history;
      const result = await service.mask(passInput, options.host, {
        cacheLikelyCold,
        ...(input.signal ? { signal: input.signal } : {}),
        ...(input.config ? { config: input.config } : {}),
        ...(input.readToolName ? { readToolName: input.readToolName } : {}),
        ...(input.searchToolName ? { searchToolName: input.searchToolName } : {}),
        ...(input.cache ? { cache: input.cache } : {}),
      });
      const historyChanged = result.changedIndices.some((index) => index < history.length);
      const maskedHistory = historyChanged ? result.newHistory.slice(0, history.length) : history;
      let maskedRequest = request;
      let requestPartsMasked = 0;
      if (pending && result.changedIndices.includes(history.length)) {
        maskedRequest = result.newHistory[history.length] ?? request;
        const before = request.parts ?? [];
        const after = maskedRequest.parts ?? [];
        requestPartsMasked = after.filter((part, index) => part !== before[index]).length;
      }
      if (result.notice) safeCall(options.onNotice, result.notice, result);
      return {
        history: maskedHistory,
        request: maskedRequest,
        result,
        cacheLikelyCold,
        requestPartsMasked,
      };
    } catch (error) {
      // The service never throws; this guards the glue above. The request goes out as it came.
      debug(`[toolmask] pass skipped: ${describeError(error)}`);
      return {
        history,
        request,
        result: unchangedResult(history, 0, 0, 0),
        cacheLikelyCold,
        requestPartsMasked: 0,
      };
    }
  }

  return {
    transformRequest,
    requestEnded(at) {
      lastRequestEnded = at ?? now();
    },
  };
}
