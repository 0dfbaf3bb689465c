/**
 * The launcher's signal handling while a client runs and until the launcher is done: Ctrl-C
 * reaches the client directly (it shares the terminal's process group), which decides what it
 * means; the launcher ignores it meanwhile, and until it has cleaned up and printed the run's
 * summary (a second Ctrl-C pressed to quit the client must not cut that short). SIGTERM and SIGHUP
 * sent to the launcher alone are passed on to the client while it runs.
 */

const RELEASE_DELAY_MS = 2_000;

/**
 * The launcher's signal handling while a client runs and until the launcher is done: Ctrl-C is
 * the client's (ignored here), SIGTERM and SIGHUP are passed on to a client still running.
 */
export class SignalGuard {
  private child: { kill(signal: NodeJS.Signals): unknown } | undefined;
  private held = false;
  private readonly ignore = () => undefined;
  private readonly onTerm = () => this.child?.kill('SIGTERM');
  private readonly onHup = () => this.child?.kill('SIGHUP');

  hold(): void {
    if (this.held) return;
    this.held = true;
    process.on('SIGINT', this.ignore);
    process.on('SIGTERM', this.onTerm);
    process.on('SIGHUP', this.onHup);
  }

  /** The client to pass SIGTERM and SIGHUP on to. */
  passTo(child: { kill(signal: NodeJS.Signals): unknown }): void {
    this.child = child;
  }

  childGone(): void {
    this.child = undefined;
  }

  /**
   * Stops holding, a little later: the launcher is about to exit once it returns, and a Ctrl-C
   * pressed once more in between must not turn the client's exit code into a death by SIGINT. The
   * timer does not keep the process alive.
   */
  release(): void {
    if (!this.held) return;
    this.held = false;
    setTimeout(() => {
      process.off('SIGINT', this.ignore);
      process.off('SIGTERM', this.onTerm);
      process.off('SIGHUP', this.onHup);
    }, RELEASE_DELAY_MS).unref();
  }
}
