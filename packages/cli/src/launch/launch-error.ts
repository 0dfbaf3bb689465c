import { ToolmaskError } from '@toolmask/core/errors';

/**
 * What stops a launch (`toolmask gemini`, `toolmask qwen`) or a setup before it starts, because
 * of something the person can fix: a settings file that is not valid, an auth type that cannot be
 * routed, a missing base URL. The CLI says the message and exits 2; each launcher's own errors
 * extend this class, so a new one can never surface as an unexpected error with a stack. Code
 * `LAUNCH_REFUSED`, for this class and every subclass (`GeminiLaunchError`, `QwenLaunchError`,
 * `SetupError`, `SettingsTextError`).
 */
export class LaunchError extends ToolmaskError<'LAUNCH_REFUSED'> {
  constructor(message: string, options?: ErrorOptions) {
    super('LAUNCH_REFUSED', message, options);
  }
}
