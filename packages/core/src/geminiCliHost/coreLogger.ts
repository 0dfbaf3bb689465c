/**
 * gemini-cli-core's `debugLogger` and `coreEvents`, loaded lazily: importing
 * `@google/gemini-cli-core` costs about two seconds, and `@toolmask/core` must stay cheap to import
 * for code that never installs into a host (the CLI, the service alone). A host that installs
 * toolmask has loaded core already, so the dynamic import resolves from the module cache at once.
 * Messages sent before it resolves go to `console.debug` / `console.warn`.
 */
import type * as Core from '@google/gemini-cli-core';

type CoreModule = typeof Core;

let core: CoreModule | undefined;
let loading: Promise<void> | undefined;

/** Starts loading core's logger (idempotent). */
export function loadCoreLogger(): Promise<void> {
  loading ??= import('@google/gemini-cli-core')
    .then((module) => {
      core = module;
    })
    .catch(() => undefined);
  return loading;
}

/** A developer-facing debug line, through core's `debugLogger` (its debug drawer in gemini-cli). */
export function coreDebug(message: string): void {
  if (core) core.debugLogger.debug(message);
  else console.debug(message);
}

/**
 * A warning for the person at the keyboard: core's `UserFeedback` event (shown by gemini-cli's UI)
 * plus a debug-log line.
 */
export function coreWarn(message: string, error?: unknown): void {
  if (core) {
    core.debugLogger.warn(message);
    core.coreEvents.emitFeedback('warning', message, error);
  } else {
    console.warn(message);
    void loadCoreLogger().then(() => core?.coreEvents.emitFeedback('warning', message, error));
  }
}
