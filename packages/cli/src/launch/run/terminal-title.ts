/**
 * The terminal title a launcher sets while its client runs (stdout a terminal): where the run's
 * dashboard is, which outlives the client's full-screen UI (issue 35). The title before the run is
 * pushed on the terminal's title stack first (xterm's `CSI 22;0t`, kept by most terminals that
 * keep a stack) and popped when the run ends; a terminal without a stack gets an empty title
 * instead, so no title names a gateway that stopped with the run.
 */

/** The terminal title of a run: where its dashboard is (its token is not shown: a title is seen). */
export function launchTitle(client: string, gatewayUrl: string): string {
  return `toolmask ${client} · dashboard ${gatewayUrl} (toolmask dashboard opens it)`;
}

/** The escape sequence that sets a terminal's window and icon title (OSC 0), control characters out. */
export function titleSequence(title: string): string {
  // eslint-disable-next-line no-control-regex
  return `\u001b]0;${title.replace(/[\u0000-\u001f\u007f]/g, '')}\u0007`;
}

const PUSH_TITLE = '\u001b[22;0t';
const POP_TITLE = '\u001b[23;0t';

export interface TerminalTitle {
  set(title: string): void;
  /** Puts back the title from before the first `set` (nothing when none was set). */
  restore(): void;
}

/** A run's title on the terminal that `write` writes to. */
export function terminalTitle(write: (text: string) => void): TerminalTitle {
  let pushed = false;
  return {
    set(title) {
      write(`${pushed ? '' : PUSH_TITLE}${titleSequence(title)}`);
      pushed = true;
    },
    restore() {
      if (pushed) write(`${titleSequence('')}${POP_TITLE}`);
      pushed = false;
    },
  };
}
