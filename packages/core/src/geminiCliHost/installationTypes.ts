/**
 * The public shapes of the gemini-cli installation: its options, what it reports after each pass,
 * and the installation handle (installToolOutputMasking.ts).
 */
import type { Config } from '@google/gemini-cli-core';
import type {
  ToolOutputMaskingService,
  ToolOutputMaskingServiceDeps,
} from '../services/toolOutputMaskingService.js';
import type { MaskingResult } from '../services/maskingTypes.js';
import type { RetentionReport } from '../storage/retention.js';
import type { WriteBackResult } from './historyWriteBack.js';
import type { ToolOutputMaskingHost, ToolOutputMaskingOptions } from './maskingHost.js';

export interface InstallToolOutputMaskingOptions extends ToolOutputMaskingOptions {
  /** Idle time after which a new text prompt counts as cache-cold. @default 5 minutes */
  idleGapMs?: number;
  /** Switch core's built-in masking off while installed. @default true */
  disableCoreMasking?: boolean;
  /** Let the pass see (and offload a giant output of) the request being sent. @default true */
  maskPendingRequest?: boolean;
  /** Record OpenTelemetry metrics (telemetry/metrics.ts). @default true */
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
  /** Register the `read_tool_output` tool in the host's tool registry. @default true */
  readTool?: boolean;
  /** Remove session folders older than `retentionDays` in the background at install. @default true */
  retention?: boolean;
  /** Told when the background retention run is done (also when it removed nothing). */
  onRetention?: (report: RetentionReport) => void;
  /** Observer of every pass (UIs, tests). Exceptions are swallowed. */
  onPass?: (pass: MaskingPass) => void;
  /** Test seams. */
  _internal?: {
    /** Debug lines. @default core's `debugLogger.debug` */
    debug?: (message: string) => void;
    /** Milliseconds clock for the idle gap. @default Date.now */
    now?: () => number;
    /** How often the liveness markers are refreshed. @default HEARTBEAT_MS (5 minutes) */
    heartbeatMs?: number;
    /** How long a turn waits for the settings files. @default SETTINGS_READ_WAIT_MS (2 s) */
    settingsWaitMs?: number;
  };
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
