/**
 * `installToolOutputMasking(config, options?)`: the entry point for hosts built on
 * gemini-cli-core (0.61.0). It makes the masking middleware (services/maskingMiddleware.ts) run
 * before every model request of every `GeminiClient` whose Config is `config`, including the
 * client's own recursive requests and clients created after installation.
 *
 * This file adapts the host; each job has its own module:
 * - the prototype patch in front of `sendMessageStream` (clientPatch.ts);
 * - core's own masking switched off through the Config (coreMasking.ts) and at the client;
 * - the configuration from settings files and options (maskingHost.ts), with `maxOutputTokens`
 *   derived from the active model's context window (core's `tokenLimit`) when unset;
 * - per request: the history from `client.getHistory()` (snippets a resumed history brings back
 *   recorded as the service's own, restoredSnippets.ts), the request being sent as a `Content`,
 *   the middleware, the masked history written back onto the live chat (historyWriteBack.ts) and
 *   the masked request sent in place of the original;
 * - the read-back tool `read_tool_output` (readToolRegistration.ts, readToolOutputTool.ts), which
 *   also opens the conversation's earlier session folders after a `config.rotateSessionId(...)`
 *   (conversationSessions.ts);
 * - retention in the background after install (retentionSchedule.ts), and a heartbeat that keeps
 *   this conversation's folders from anyone's retention while it runs (sessionHeartbeat.ts);
 * - the pass of each request, and metrics and observers after it (requestPasses.ts).
 */
import type { Config, GeminiClient } from '@google/gemini-cli-core';
import type { Attributes } from '@opentelemetry/api';
import { ToolOutputMaskingService } from '../services/toolOutputMaskingService.js';
import type { RetentionReport } from '../storage/retention.js';
import { describeError, safeSink } from '../utils/safeCall.js';
import {
  acquireClientPatch,
  ownerPrototype,
  type ClientHandler,
  type ClientPatch,
  type SendArgs,
  type SendMessageStream,
} from './clientPatch.js';
import { hostCommonAttributes } from './commonAttributes.js';
import { coreDebug, loadCoreLogger } from './coreLogger.js';
import { ConversationSessions } from './conversationSessions.js';
import { RestoredSnippets } from './restoredSnippets.js';
import { SessionHeartbeat } from './sessionHeartbeat.js';
import { sessionDirectory } from '../storage/outputLayout.js';
import { CoreMaskingCheck, disableCoreMasking } from './coreMasking.js';
import type {
  InstallToolOutputMaskingOptions,
  MaskingPass,
  ToolOutputMaskingInstallation,
} from './installationTypes.js';
import { withToolOutputMasking, type ToolOutputMaskingHost } from './maskingHost.js';
import { ReadToolRegistration, type CoreSide } from './readToolRegistration.js';
import { RequestPasses } from './requestPasses.js';
import { scheduleRetention } from './retentionSchedule.js';

export type { InstallToolOutputMaskingOptions, MaskingPass, ToolOutputMaskingInstallation };

const installations = new WeakMap<object, Installation>();

/** The installation of a client's Config (core keeps the Config behind a private getter). */
function installationOf(client: object): Installation | undefined {
  try {
    const config: unknown = Reflect.get(client, 'config');
    return config !== null && typeof config === 'object' ? installations.get(config) : undefined;
  } catch {
    return undefined;
  }
}

class Installation implements ToolOutputMaskingInstallation, ClientHandler {
  readonly host: ToolOutputMaskingHost;
  readonly service: ToolOutputMaskingService;
  readonly suppressesCoreMasking: boolean;
  readonly ready: Promise<void>;
  readonly retention: Promise<RetentionReport | undefined>;
  private active = true;
  private readonly patch: ClientPatch;
  private readonly restoreCoreMasking?: () => void;
  private readonly commonAttributes: () => Attributes;
  private readonly debug: (message: string) => void;
  private readonly readTool: ReadToolRegistration;
  /** The core-bound module (read-back tool, `tokenLimit`), once loaded. */
  private coreSide?: CoreSide;
  private readonly coreCheck: CoreMaskingCheck;
  /** The session ids of this conversation (config.rotateSessionId gives it new ones). */
  private readonly sessions = new ConversationSessions();
  /** Keeps the conversation's folders live for retention in any process. */
  private readonly heartbeat: SessionHeartbeat;
  /** The pass of each model request (one middleware per client). */
  private readonly passes: RequestPasses;

  constructor(
    readonly config: Config,
    private readonly options: InstallToolOutputMaskingOptions,
  ) {
    const host = withToolOutputMasking(config, {
      ...options,
      contextWindowTokens: options.contextWindowTokens ?? (() => this.activeContextWindow()),
    });
    // Every session id the pass, the read-back tool or retention sees is the conversation's.
    this.host = {
      ...host,
      getSessionId: () => {
        const id = host.getSessionId();
        this.sessions.observe(id);
        return id;
      },
    };
    this.host.getSessionId();
    // A throwing debug sink must never reach the host's turn (it is called from every catch).
    this.debug = safeSink(options._internal?.debug ?? coreDebug);
    this.commonAttributes = hostCommonAttributes(config);
    this.service =
      options.service ??
      new ToolOutputMaskingService({
        debug: this.debug,
        ...options.serviceDeps,
        commonAttributes: this.commonAttributes,
      });
    // The class of the host's own client (whatever copy of core the host loaded); clients the
    // host creates later share its prototype.
    const proto = ownerPrototype(config.getGeminiClient());
    if (!proto) {
      throw new Error('toolmask: config.getGeminiClient() has no sendMessageStream to hook.');
    }
    this.suppressesCoreMasking = options.disableCoreMasking !== false;
    if (this.suppressesCoreMasking) this.restoreCoreMasking = disableCoreMasking(config);
    this.coreCheck = new CoreMaskingCheck(config, this.suppressesCoreMasking, this.debug);
    this.patch = acquireClientPatch(proto, installationOf);
    this.readTool = new ReadToolRegistration(config, () => this.readAccess(), this.debug);
    this.heartbeat = new SessionHeartbeat(
      () =>
        this.sessions
          .all()
          .map((id) => sessionDirectory(this.host.storage.getProjectTempDir(), id)),
      options._internal?.heartbeatMs,
    );
    this.passes = new RequestPasses({
      service: this.service,
      host: this.host,
      options,
      debug: this.debug,
      commonAttributes: this.commonAttributes,
      restored: new RestoredSnippets(this.service, () => this.host.storage.getProjectTempDir()),
      heartbeat: this.heartbeat,
      shouldMask: (client) => this.shouldMask(client),
      searchToolName: () => this.readTool.searchToolName,
    });
    this.ready = this.loadCoreSide();
    this.retention =
      options.retention === false
        ? Promise.resolve(undefined)
        : scheduleRetention({
            host: this.host,
            isActive: () => this.active,
            debug: this.debug,
            ...(options.onRetention ? { onRetention: options.onRetention } : {}),
          });
  }

  get installed(): boolean {
    return this.active;
  }

  uninstall(): void {
    if (!this.active) return;
    this.active = false;
    if (installations.get(this.config) === this) installations.delete(this.config);
    this.restoreCoreMasking?.();
    this.patch.release();
    this.readTool.unregister();
    this.heartbeat.stop();
  }

  /** The wrapper body for one `sendMessageStream` call of one of our clients. */
  async *send(
    client: GeminiClient,
    original: SendMessageStream,
    args: SendArgs,
  ): ReturnType<SendMessageStream> {
    const [request, signal, promptId, ...rest] = args;
    const middleware = this.passes.middlewareOf(client);
    const finalRequest = await this.passes.beforeRequest(
      client,
      middleware,
      request,
      signal,
      promptId,
    );
    try {
      return yield* original.call(client, finalRequest, signal, promptId, ...rest);
    } finally {
      middleware.requestEnded();
    }
  }

  /** Loads the core-bound module and registers the read-back tool. Never rejects. */
  private async loadCoreSide(): Promise<void> {
    try {
      this.coreSide = await import('./readToolOutputTool.js');
      if (this.active && this.options.readTool !== false) this.readTool.ensure(this.coreSide);
    } catch (error) {
      this.debug(`[toolmask] read_tool_output not available: ${describeError(error)}`);
    }
  }

  /** The context window of the model about to be called, from core's `tokenLimit`. */
  private activeContextWindow(): number | undefined {
    let model: string | undefined;
    try {
      model = this.config.getActiveModel?.() || this.config.getModel();
    } catch {
      model = undefined;
    }
    return this.coreSide?.contextWindowOf(model);
  }

  /** Where the read-back tool may read, from the live settings and session. */
  private async readAccess() {
    const maskingConfig = await this.host.getToolOutputMaskingConfig();
    const sessionId = this.host.getSessionId();
    return {
      projectTempDir: this.host.storage.getProjectTempDir(),
      sessionId,
      allowOtherSessions: maskingConfig.allowOtherSessions,
      // Outputs of the conversation before a rotated session id stay readable.
      earlierSessionIds: this.sessions.earlierThan(sessionId),
    };
  }

  /** Whether the pass should run for this request at all (host-level switches). */
  private async shouldMask(client: GeminiClient): Promise<boolean> {
    if (!this.active || !client.isInitialized()) return false;
    await this.ready;
    if (this.coreSide && this.options.readTool !== false) this.readTool.ensure(this.coreSide);
    await this.readTool.refreshClient(client);
    if (!(await this.coreCheck.allowsToolmask())) return false;
    return (await this.host.getToolOutputMaskingConfig()).enabled;
  }
}

/**
 * Installs the masking pass for every `GeminiClient` of `config` (see the module comment).
 * Throws when `config` already has an installation, or when `options.settings` is invalid.
 */
export function installToolOutputMasking(
  config: Config,
  options: InstallToolOutputMaskingOptions = {},
): ToolOutputMaskingInstallation {
  if (installations.has(config)) {
    throw new Error(
      'toolmask is already installed on this Config; call uninstall() on the existing installation first.',
    );
  }
  void loadCoreLogger();
  const installation = new Installation(config, options);
  installations.set(config, installation);
  return installation;
}

/** The active installation of a Config, if any. */
export function getToolOutputMaskingInstallation(
  config: Config,
): ToolOutputMaskingInstallation | undefined {
  return installations.get(config);
}
