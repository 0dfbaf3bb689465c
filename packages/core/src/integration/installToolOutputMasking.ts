/**
 * `installToolOutputMasking(config, options?)`: the one entry point for hosts. It makes the
 * masking pass run before every model request of every `GeminiClient` whose Config is `config`,
 * including the client's own recursive requests and clients created after installation.
 *
 * How (gemini-cli-core 0.61.0):
 * - `GeminiClient.prototype.sendMessageStream` is wrapped. Core calls `this.sendMessageStream(...)`
 *   for its continuations (next-speaker "Please continue.", loop recovery, AfterAgent hooks), so
 *   those go through the wrapper too. For a client of an installed Config the wrapper awaits the
 *   pass (it never throws), writes the masked history back (historyWriteBack.ts), then delegates
 *   with `yield*` to the original. Clients of other Configs are passed straight through.
 * - Core's own pass is switched off through the Config (coreMasking.ts) and, because remote
 *   experiment flags can override those thresholds, `GeminiClient.prototype.tryMaskToolOutputs`
 *   is also made a no-op for installed Configs.
 * - The request being sent (e.g. the newest `functionResponse` parts) is not in the history yet.
 *   It is given to the pass as the latest turn, so `maxOutputTokens` can offload a giant newest
 *   output before it is ever sent; otherwise the latest turn is protected as usual.
 * - Cache-cold signal: a new user text prompt more than `idleGapMs` after this client's previous
 *   model request finished is passed as `cacheLikelyCold: true`.
 * - `maxOutputTokens`, when unset, is a quarter of the active model's context window (core's
 *   `tokenLimit`), read at every request.
 * - The read-back tool `read_tool_output` (readToolOutputTool.ts) is registered in the Config's
 *   `ToolRegistry` and allowed in its policy engine; it is registered again if the registry is
 *   replaced, and clients that already sent requests get their tool declarations refreshed.
 * - Retention: session folders of offloaded outputs older than `retentionDays` are removed in
 *   the background, once, after installation (services/retention.ts); the first turn never waits.
 * - After each pass that masked something, `onNotice` gets a one-line summary for the person.
 *
 * Prototype patches are reference-counted per prototype; `uninstall()` restores the originals when
 * the last installation on that prototype goes (and leaves them if someone wrapped on top since).
 */
import type { Config, Content, GeminiClient, Part } from '@google/gemini-cli-core';
import type { Attributes } from '@opentelemetry/api';
import {
  ToolOutputMaskingService,
  type ToolOutputMaskingServiceDeps,
} from '../services/toolOutputMaskingService.js';
import type { MaskingHost, MaskingResult } from '../services/maskingTypes.js';
import type { ToolOutputMaskingConfig } from '../config/toolOutputMaskingSettings.js';
import { recordMaskingMetrics } from '../telemetry/metrics.js';
import { applyRetention, type RetentionReport } from '../services/retention.js';
import { READ_TOOL_OUTPUT_TOOL_NAME } from '../services/toolOutputReader.js';
import { formatCount } from '../utils/formatCount.js';
import { hostCommonAttributes } from './commonAttributes.js';
import { coreDebug, loadCoreLogger } from './coreLogger.js';
// Types only: the module itself (it imports gemini-cli-core) is loaded lazily.
import type * as CoreSideModule from './readToolOutputTool.js';
import { disableCoreMasking, isCoreMaskingOff } from './coreMasking.js';
import {
  collectPartReplacements,
  writeBackMaskedHistory,
  type WriteBackResult,
} from './historyWriteBack.js';
import {
  withToolOutputMasking,
  type ToolOutputMaskingHost,
  type ToolOutputMaskingOptions,
} from './maskingHost.js';

/** Roughly the prompt-cache lifetime: after this much idle time the cache is most likely cold. */
export const DEFAULT_IDLE_GAP_MS = 5 * 60 * 1000;

export interface InstallToolOutputMaskingOptions extends ToolOutputMaskingOptions {
  /** Idle time after which a new text prompt counts as cache-cold. Default 5 minutes. */
  idleGapMs?: number;
  /** Switch core's built-in masking off while installed. Default true. */
  disableCoreMasking?: boolean;
  /** Let the pass see (and offload a giant output of) the request being sent. Default true. */
  maskPendingRequest?: boolean;
  /** Record OpenTelemetry metrics (telemetry/metrics.ts). Default true. */
  metrics?: boolean;
  /** A ready service; default: one built with `serviceDeps` and the host's common attributes. */
  service?: ToolOutputMaskingService;
  serviceDeps?: Omit<ToolOutputMaskingServiceDeps, 'commonAttributes'>;
  /**
   * One line for the person at the keyboard after each pass that masked something, e.g.
   * `toolmask: masked 7 older tool outputs, freed ~48,213 tokens; full outputs in <dir>`.
   * Default: core's `debugLogger.debug` (gemini-cli's debug console).
   */
  onNotice?: (notice: string, result: MaskingResult) => void;
  /** Register the `read_tool_output` tool in the host's tool registry. Default true. */
  readTool?: boolean;
  /** Remove session folders older than `retentionDays` in the background at install. Default true. */
  retention?: boolean;
  /** Told when the background retention run is done (also when it removed nothing). */
  onRetention?: (report: RetentionReport) => void;
  /** Observer of every pass (UIs, tests). Exceptions are swallowed. */
  onPass?: (pass: MaskingPass) => void;
  /** Debug lines. Default: core's `debugLogger.debug`. */
  debug?: (message: string) => void;
  /** Milliseconds clock for the idle gap. Default `Date.now`. */
  now?: () => number;
}

export interface MaskingPass {
  promptId: string;
  result: MaskingResult;
  cacheLikelyCold: boolean;
  writeBack: WriteBackResult;
  /** Outputs of the pending request that were offloaded before sending. */
  requestPartsMasked: number;
}

export interface ToolOutputMaskingInstallation {
  readonly config: Config;
  /** The adapter the pass reads its configuration and storage from. */
  readonly host: ToolOutputMaskingHost;
  readonly service: ToolOutputMaskingService;
  readonly installed: boolean;
  /**
   * Settles when the core-bound part is loaded and `read_tool_output` is registered (a few ticks
   * after install; every request awaits it). Never rejects.
   */
  readonly ready: Promise<void>;
  /** The background retention run: its report, or undefined when it did not run. Never rejects. */
  readonly retention: Promise<RetentionReport | undefined>;
  /** Undoes everything `install` did. Idempotent. */
  uninstall(): void;
}

type CoreSide = typeof CoreSideModule;
type ReadToolRegistration = NonNullable<ReturnType<CoreSide['registerReadToolOutputTool']>>;

type SendMessageStream = GeminiClient['sendMessageStream'];
type SendArgs = Parameters<SendMessageStream>;
/** What `sendMessageStream` accepts as a request (`@google/genai`'s PartListUnion). */
type PartListUnion = SendArgs[0];
type TryMask = (this: GeminiClient, history: readonly Content[]) => Promise<void>;

interface PrototypePatch {
  proto: Record<string, unknown>;
  originalSend: SendMessageStream;
  wrappedSend: SendMessageStream;
  originalTryMask?: TryMask;
  wrappedTryMask?: TryMask;
  users: number;
}

const installations = new WeakMap<object, Installation>();
const patches = new Map<object, PrototypePatch>();

/** The Config of a client (core keeps it behind a private getter). */
function configOf(client: object): object | undefined {
  try {
    const config: unknown = Reflect.get(client, 'config');
    return config !== null && typeof config === 'object' ? config : undefined;
  } catch {
    return undefined;
  }
}

function installationOf(client: object): Installation | undefined {
  const config = configOf(client);
  return config ? installations.get(config) : undefined;
}

function toParts(request: PartListUnion): Part[] {
  const list = Array.isArray(request) ? request : [request];
  return list.map((item) => (typeof item === 'string' ? { text: item } : item));
}

function isTextPrompt(parts: readonly Part[]): boolean {
  return (
    parts.some((part) => typeof part.text === 'string' && part.text.length > 0) &&
    !parts.some((part) => part.functionResponse)
  );
}

/** The prototype in the chain that owns `sendMessageStream` (the class itself, not a subclass). */
function ownerPrototype(start: object): Record<string, unknown> | undefined {
  for (let proto: object | null = start; proto; proto = Object.getPrototypeOf(proto)) {
    if (Object.prototype.hasOwnProperty.call(proto, 'sendMessageStream')) {
      return proto as Record<string, unknown>;
    }
  }
  return undefined;
}

function acquirePatch(proto: Record<string, unknown>): PrototypePatch {
  const existing = patches.get(proto);
  if (existing) {
    existing.users++;
    return existing;
  }
  const originalSend = proto['sendMessageStream'] as SendMessageStream;
  const wrappedSend = function sendMessageStream(this: GeminiClient, ...args: SendArgs) {
    const installation = installationOf(this);
    if (!installation) return originalSend.apply(this, args);
    return installation.send(this, originalSend, args);
  } as SendMessageStream;
  const patch: PrototypePatch = { proto, originalSend, wrappedSend, users: 1 };
  proto['sendMessageStream'] = wrappedSend;

  const tryMask = proto['tryMaskToolOutputs'];
  if (typeof tryMask === 'function') {
    const originalTryMask = tryMask as TryMask;
    const wrappedTryMask: TryMask = function tryMaskToolOutputs(this: GeminiClient, history) {
      const installation = installationOf(this);
      if (installation?.suppressesCoreMasking) return Promise.resolve();
      return originalTryMask.call(this, history);
    };
    patch.originalTryMask = originalTryMask;
    patch.wrappedTryMask = wrappedTryMask;
    proto['tryMaskToolOutputs'] = wrappedTryMask;
  }
  patches.set(proto, patch);
  return patch;
}

function releasePatch(patch: PrototypePatch): void {
  patch.users--;
  if (patch.users > 0) return;
  patches.delete(patch.proto);
  // Someone may have wrapped on top of us since; then our (now pass-through) wrapper stays.
  if (patch.proto['sendMessageStream'] === patch.wrappedSend) {
    patch.proto['sendMessageStream'] = patch.originalSend;
  }
  if (patch.wrappedTryMask && patch.proto['tryMaskToolOutputs'] === patch.wrappedTryMask) {
    patch.proto['tryMaskToolOutputs'] = patch.originalTryMask;
  }
}

class Installation implements ToolOutputMaskingInstallation {
  readonly host: ToolOutputMaskingHost;
  readonly service: ToolOutputMaskingService;
  readonly suppressesCoreMasking: boolean;
  private active = true;
  private readonly patch: PrototypePatch;
  private readonly restoreCoreMasking?: () => void;
  private readonly lastRequestEnded = new WeakMap<object, number>();
  private readonly commonAttributes: () => Attributes;
  private readonly debug: (message: string) => void;
  private readonly now: () => number;
  private readonly idleGapMs: number;
  private checkedCoreMasking = false;
  private warnedContextManagement = false;
  readonly ready: Promise<void>;
  readonly retention: Promise<RetentionReport | undefined>;
  /** The core-bound module (read-back tool, `tokenLimit`), once loaded. */
  private coreSide?: CoreSide;
  private readTool?: ReadToolRegistration;
  /** Bumped whenever the tool is (re)registered; clients that saw an older one refresh their tools. */
  private readToolGeneration = 0;
  private readonly clientToolGeneration = new WeakMap<object, number>();
  /** A registry where another tool owns the name `read_tool_output`. */
  private foreignReadToolRegistry?: object;

  constructor(
    readonly config: Config,
    private readonly options: InstallToolOutputMaskingOptions,
  ) {
    this.host = withToolOutputMasking(config, {
      ...options,
      contextWindowTokens: options.contextWindowTokens ?? (() => this.activeContextWindow()),
    });
    this.debug = options.debug ?? coreDebug;
    this.now = options.now ?? Date.now;
    this.idleGapMs = Math.max(0, options.idleGapMs ?? DEFAULT_IDLE_GAP_MS);
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
    this.patch = acquirePatch(proto);
    this.ready = this.loadCoreSide();
    this.retention =
      options.retention === false ? Promise.resolve(undefined) : this.scheduleRetention();
  }

  /** Loads the core-bound module and registers the read-back tool. Never rejects. */
  private async loadCoreSide(): Promise<void> {
    try {
      this.coreSide = await import('./readToolOutputTool.js');
      if (this.active) this.ensureReadToolRegistered();
    } catch (error) {
      this.debug(
        `[toolmask] read_tool_output not available: ${error instanceof Error ? error.message : String(error)}`,
      );
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

  /** Registers the tool unless disabled, already there, or another tool owns the name. */
  private ensureReadToolRegistered(): void {
    if (this.options.readTool === false || !this.coreSide) return;
    try {
      const registry = this.config.getToolRegistry();
      if (
        this.readTool &&
        this.readTool.registry === registry &&
        registry.getTool(this.readTool.tool.name) === this.readTool.tool
      ) {
        return;
      }
      // Someone else's tool of that name: leave it, and say so once per registry.
      if (
        !this.readTool &&
        this.foreignReadToolRegistry === registry &&
        registry.getTool(READ_TOOL_OUTPUT_TOOL_NAME)
      ) {
        return;
      }
      // The registry was replaced (or the tool removed): register again.
      this.readTool?.unregister();
      this.readTool = this.coreSide.registerReadToolOutputTool(this.config, () =>
        this.readAccess(),
      );
      if (this.readTool) {
        this.readToolGeneration++;
      } else {
        this.foreignReadToolRegistry = registry;
        this.debug(
          '[toolmask] a tool named read_tool_output is registered already; leaving it in place.',
        );
      }
    } catch (error) {
      this.readTool = undefined;
      this.debug(
        `[toolmask] could not register read_tool_output: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /** Where the read-back tool may read, from the live settings and session. */
  private async readAccess() {
    const maskingConfig = await this.host.getToolOutputMaskingConfig();
    return {
      projectTempDir: this.host.storage.getProjectTempDir(),
      sessionId: this.host.getSessionId(),
      allowOtherSessions: maskingConfig.allowOtherSessions,
    };
  }

  /** A client that sent requests before the tool was (re)registered gets fresh declarations. */
  private async refreshClientTools(client: GeminiClient): Promise<void> {
    if (!this.readTool || this.clientToolGeneration.get(client) === this.readToolGeneration) return;
    this.clientToolGeneration.set(client, this.readToolGeneration);
    try {
      await client.setTools();
    } catch {
      // The declarations are refreshed at the next model change anyway.
    }
  }

  /** Retention after install: in the background, never awaited by a turn. */
  private scheduleRetention(): Promise<RetentionReport | undefined> {
    return new Promise((resolve) => {
      const timer = setImmediate(() => {
        this.runRetention().then(resolve, () => resolve(undefined));
      });
      // A process that is done anyway does not wait for housekeeping.
      timer.unref();
    });
  }

  private async runRetention(): Promise<RetentionReport | undefined> {
    if (!this.active) return undefined;
    const { retentionDays } = await this.host.getToolOutputMaskingConfig();
    if (!(retentionDays > 0)) return undefined;
    const report = await applyRetention({
      projectTempDir: this.host.storage.getProjectTempDir(),
      retentionDays,
      keepSessions: [this.host.getSessionId()],
    });
    if (report.removed.length > 0 || report.failed.length > 0) {
      this.debug(
        `[toolmask] retention (${retentionDays} days): removed ${report.removed.length} session folder(s) of offloaded outputs, ${formatCount(report.bytesFreed)} bytes` +
          (report.failed.length > 0
            ? `; could not remove ${report.failed.map((f) => `${f.folder.path} (${f.message})`).join(', ')}`
            : ''),
      );
    }
    try {
      this.options.onRetention?.(report);
    } catch {
      // Observers never matter to the session.
    }
    return report;
  }

  get installed(): boolean {
    return this.active;
  }

  uninstall(): void {
    if (!this.active) return;
    this.active = false;
    if (installations.get(this.config) === this) installations.delete(this.config);
    this.restoreCoreMasking?.();
    releasePatch(this.patch);
    if (this.readTool) {
      this.readTool.unregister();
      this.readTool = undefined;
      // The host's main client drops the declaration now; others at their next model change.
      try {
        void this.config
          .getGeminiClient()
          .setTools()
          .catch(() => undefined);
      } catch {
        // No client: nothing to refresh.
      }
    }
  }

  /** The wrapper body for one `sendMessageStream` call of one of our clients. */
  async *send(
    client: GeminiClient,
    original: SendMessageStream,
    args: SendArgs,
  ): ReturnType<SendMessageStream> {
    const [request, signal, promptId, ...rest] = args;
    const finalRequest = await this.beforeRequest(client, request, signal, promptId);
    try {
      return yield* original.call(client, finalRequest, signal, promptId, ...rest);
    } finally {
      this.lastRequestEnded.set(client, this.now());
    }
  }

  /** Runs the pass and writes it back; returns the request to send. Never throws. */
  private async beforeRequest(
    client: GeminiClient,
    request: PartListUnion,
    signal: AbortSignal,
    promptId: string,
  ): Promise<PartListUnion> {
    try {
      if (!this.active || !client.isInitialized()) return request;
      await this.ready;
      this.ensureReadToolRegistered();
      await this.refreshClientTools(client);
      if (this.config.isContextManagementEnabled()) {
        if (!this.warnedContextManagement) {
          this.warnedContextManagement = true;
          this.debug(
            '[toolmask] contextManagement.enabled is on: core manages the history itself, so toolmask stands down.',
          );
        }
        return request;
      }
      await this.checkCoreMaskingOnce();
      const maskingConfig = await this.host.getToolOutputMaskingConfig();
      if (!maskingConfig.enabled) return request;

      const parts = toParts(request);
      const last = this.lastRequestEnded.get(client);
      const cacheLikelyCold =
        isTextPrompt(parts) && last !== undefined && this.now() - last > this.idleGapMs;
      const history = client.getHistory();
      const pending =
        this.options.maskPendingRequest !== false && parts.some((part) => part.functionResponse)
          ? ({ role: 'user', parts } satisfies Content)
          : undefined;
      const input = pending ? [...history, pending] : history;

      const result = await this.service.mask(input, this.passHost(maskingConfig), {
        cacheLikelyCold,
        signal,
      });

      const writeBack = writeBackMaskedHistory(client.getChat(), history, result);
      let finalRequest: PartListUnion = request;
      let requestPartsMasked = 0;
      if (pending && result.changedIndices.includes(input.length - 1)) {
        // Same checks as for the history: same ids and names, nothing restructured.
        const { replacements } = collectPartReplacements([pending], {
          newHistory: [result.newHistory[input.length - 1] ?? pending],
          changedIndices: [0],
        });
        if (replacements.size > 0) {
          requestPartsMasked = replacements.size;
          finalRequest = parts.map((part) => replacements.get(part) ?? part);
        }
      }
      if (writeBack.refused > 0 || writeBack.missed > 0) {
        this.debug(
          `[toolmask] write-back: ${writeBack.refused} replacement(s) refused, ${writeBack.missed} not found in the live history`,
        );
      }
      this.report({ promptId, result, cacheLikelyCold, writeBack, requestPartsMasked });
      return finalRequest;
    } catch (error) {
      this.debug(
        `[toolmask] pass skipped: ${error instanceof Error ? error.message : String(error)}`,
      );
      return request;
    }
  }

  /** The host for one pass: the configuration is resolved once per request. */
  private passHost(maskingConfig: ToolOutputMaskingConfig): MaskingHost {
    return {
      getToolOutputMaskingConfig: async () => maskingConfig,
      getSessionId: () => this.host.getSessionId(),
      storage: this.host.storage,
    };
  }

  private report(pass: MaskingPass): void {
    if (this.options.metrics !== false) {
      recordMaskingMetrics(pass.result, this.safeCommonAttributes());
    }
    if (pass.result.notice) {
      try {
        if (this.options.onNotice) this.options.onNotice(pass.result.notice, pass.result);
        else this.debug(pass.result.notice);
      } catch {
        // Observers never break a turn.
      }
    }
    try {
      this.options.onPass?.(pass);
    } catch {
      // Observers never break a turn.
    }
  }

  private safeCommonAttributes(): Attributes {
    try {
      return this.commonAttributes();
    } catch {
      return {};
    }
  }

  private async checkCoreMaskingOnce(): Promise<void> {
    if (this.checkedCoreMasking || !this.suppressesCoreMasking) return;
    this.checkedCoreMasking = true;
    try {
      if (!(await isCoreMaskingOff(this.config))) {
        this.debug(
          "[toolmask] remote experiment flags override core's masking thresholds; core's pass is suppressed at the client instead.",
        );
      }
    } catch {
      // Informational only.
    }
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
