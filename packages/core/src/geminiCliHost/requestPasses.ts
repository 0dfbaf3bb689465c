/**
 * The pass of each model request of an installed client: one masking middleware per client (the
 * idle gap is that conversation's), the history read and the masked one written back
 * (maskClientRequest.ts), then the report: metrics, the observer, and the heartbeat once a pass
 * has made a session folder. Whether a request is masked at all is the installation's call
 * (`shouldMask`: host-level switches).
 */
import type { GeminiClient } from '@google/gemini-cli-core';
import type { Attributes } from '@opentelemetry/api';
import type { ToolOutputMaskingService } from '../services/toolOutputMaskingService.js';
import { createMaskingMiddleware, type MaskingMiddleware } from '../services/maskingMiddleware.js';
import { recordMaskingMetrics } from '../telemetry/metrics.js';
import { describeError, safeCall } from '../utils/safeCall.js';
import type { InstallToolOutputMaskingOptions, MaskingPass } from './installationTypes.js';
import type { ToolOutputMaskingHost } from './maskingHost.js';
import { maskClientRequest, type PartListUnion } from './maskClientRequest.js';
import type { RestoredSnippets } from './restoredSnippets.js';
import type { SessionHeartbeat } from './sessionHeartbeat.js';

export interface RequestPassesDeps {
  service: ToolOutputMaskingService;
  host: ToolOutputMaskingHost;
  options: InstallToolOutputMaskingOptions;
  /** Never throws (a guarded sink). */
  debug: (message: string) => void;
  commonAttributes: () => Attributes;
  /** Snippets of this installation that a resumed history brings back. */
  restored: RestoredSnippets;
  /** Keeps the conversation's folders live for retention in any process. */
  heartbeat: SessionHeartbeat;
  shouldMask: (client: GeminiClient) => Promise<boolean>;
  /** The search tool the installation offers now, named in new snippets; none: not offered. */
  searchToolName: () => string | undefined;
}

export class RequestPasses {
  private readonly middlewares = new WeakMap<object, MaskingMiddleware>();

  constructor(private readonly deps: RequestPassesDeps) {}

  /** One middleware per client: the idle gap is that conversation's. */
  middlewareOf(client: GeminiClient): MaskingMiddleware {
    let middleware = this.middlewares.get(client);
    if (!middleware) {
      const { onNotice } = this.deps.options;
      middleware = createMaskingMiddleware(this.deps.service, {
        host: this.deps.host,
        ...(this.deps.options.idleGapMs !== undefined
          ? { idleGapMs: this.deps.options.idleGapMs }
          : {}),
        maskPendingRequest: this.deps.options.maskPendingRequest !== false,
        onNotice: onNotice ?? ((notice) => this.deps.debug(notice)),
        debug: this.deps.debug,
        _internal: { now: this.deps.options._internal?.now ?? Date.now },
      });
      this.middlewares.set(client, middleware);
    }
    return middleware;
  }

  /** Runs the middleware and writes its result back; returns the request to send. Never throws. */
  async beforeRequest(
    client: GeminiClient,
    middleware: MaskingMiddleware,
    request: PartListUnion,
    signal: AbortSignal,
    promptId: string,
  ): Promise<PartListUnion> {
    try {
      if (!(await this.deps.shouldMask(client))) return request;
      const masked = await maskClientRequest(
        client,
        middleware,
        request,
        signal,
        (history) => this.deps.restored.inspect(client, history),
        this.deps.searchToolName(),
      );
      if (masked.writeBack.refused > 0 || masked.writeBack.missed > 0) {
        this.deps.debug(
          `[toolmask] write-back: ${masked.writeBack.refused} replacement(s) refused, ${masked.writeBack.missed} not found in the live history`,
        );
      }
      this.report({ promptId, ...masked.pass });
      return masked.request;
    } catch (error) {
      this.deps.debug(`[toolmask] pass skipped: ${describeError(error)}`);
      return request;
    }
  }

  private report(pass: MaskingPass): void {
    // A pass that offloaded something may have made a folder: keep it live from now on.
    if (pass.result.offloaded.length > 0) this.deps.heartbeat.beat();
    if (this.deps.options.metrics !== false) {
      recordMaskingMetrics(pass.result, safeCall(this.deps.commonAttributes) ?? {});
    }
    // Observers never break a turn.
    safeCall(this.deps.options.onPass, pass);
  }
}
