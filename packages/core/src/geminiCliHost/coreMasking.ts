/**
 * Switching gemini-cli-core's own masking pass off, so that it never masks on top of toolmask.
 *
 * In @google/gemini-cli-core 0.61.0 the built-in pass (`GeminiClient.tryMaskToolOutputs`, run in
 * every `processTurn`) reads `config.getToolOutputMaskingConfig()`, which takes its thresholds
 * from `contextManagement.tools.outputMasking` of the Config — unless remote experiment flags
 * (Code Assist / "Login with Google" sessions) override them. It has no `enabled` switch; the
 * only switch the Config offers is thresholds it can never reach. Hosts should pass
 * `coreMaskingOffParameters()` to the Config constructor; `installToolOutputMasking` also sets
 * them on the live Config and restores the previous values on uninstall.
 */
import type { Config, ConfigParameters } from '@google/gemini-cli-core';

/** A threshold the built-in pass never reaches. */
export const CORE_MASKING_NEVER = Number.MAX_SAFE_INTEGER;

type ContextManagementParameters = NonNullable<ConfigParameters['contextManagement']>;

/**
 * `contextManagement` constructor parameters that keep core's built-in masking pass off, merged
 * into what the host already passes (other `contextManagement` settings are kept).
 */
export function coreMaskingOffParameters(
  base: ContextManagementParameters = {},
): ContextManagementParameters {
  return {
    ...base,
    tools: {
      distillation: base.tools?.distillation ?? {
        maxOutputTokens: 10_000,
        summarizationThresholdTokens: 20_000,
      },
      outputMasking: {
        protectLatestTurn: base.tools?.outputMasking?.protectLatestTurn ?? true,
        protectionThresholdTokens: CORE_MASKING_NEVER,
        minPrunableThresholdTokens: CORE_MASKING_NEVER,
      },
    },
  };
}

type OutputMaskingThresholds = ReturnType<
  Config['getContextManagementConfig']
>['tools']['outputMasking'];

/**
 * Sets the live Config's built-in masking thresholds out of reach. Returns a function that puts
 * back the previous values (only those still ours: a value someone changed since is left alone).
 * Returns undefined when the Config does not expose them (another core version).
 */
export function disableCoreMasking(config: Config): (() => void) | undefined {
  let thresholds: OutputMaskingThresholds | undefined;
  try {
    thresholds = config.getContextManagementConfig()?.tools?.outputMasking;
  } catch {
    thresholds = undefined;
  }
  if (!thresholds || typeof thresholds !== 'object') return undefined;
  const target = thresholds;
  const previous = {
    protectionThresholdTokens: target.protectionThresholdTokens,
    minPrunableThresholdTokens: target.minPrunableThresholdTokens,
  };
  target.protectionThresholdTokens = CORE_MASKING_NEVER;
  target.minPrunableThresholdTokens = CORE_MASKING_NEVER;
  return () => {
    if (target.protectionThresholdTokens === CORE_MASKING_NEVER) {
      target.protectionThresholdTokens = previous.protectionThresholdTokens;
    }
    if (target.minPrunableThresholdTokens === CORE_MASKING_NEVER) {
      target.minPrunableThresholdTokens = previous.minPrunableThresholdTokens;
    }
  };
}

/**
 * Whether core's built-in pass is effectively off: the thresholds it will read (after remote
 * experiment flags) are out of reach. False means flags override the Config; the client-level
 * guard of `installToolOutputMasking` still keeps the built-in pass from running.
 */
export async function isCoreMaskingOff(
  config: Pick<Config, 'getToolOutputMaskingConfig'>,
): Promise<boolean> {
  const effective = await config.getToolOutputMaskingConfig();
  return (
    effective.protectionThresholdTokens >= CORE_MASKING_NEVER ||
    effective.minPrunableThresholdTokens >= CORE_MASKING_NEVER
  );
}

/**
 * The host-level checks before each request: while `contextManagement.enabled` is on, core manages
 * the history itself and toolmask stands down (said once); and, once, whether remote experiment
 * flags override the thresholds that keep core's pass off (then only the client-level guard of
 * the installation keeps it from running; said in the debug log).
 */
export class CoreMaskingCheck {
  private checkedThresholds = false;
  private warnedContextManagement = false;

  constructor(
    private readonly config: Config,
    private readonly suppressesCoreMasking: boolean,
    private readonly debug: (message: string) => void,
  ) {}

  /** False while core manages the history itself. */
  async allowsToolmask(): Promise<boolean> {
    if (this.config.isContextManagementEnabled()) {
      if (!this.warnedContextManagement) {
        this.warnedContextManagement = true;
        this.debug(
          '[toolmask] contextManagement.enabled is on: core manages the history itself, so toolmask stands down.',
        );
      }
      return false;
    }
    await this.checkThresholdsOnce();
    return true;
  }

  private async checkThresholdsOnce(): Promise<void> {
    if (this.checkedThresholds || !this.suppressesCoreMasking) return;
    this.checkedThresholds = true;
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
