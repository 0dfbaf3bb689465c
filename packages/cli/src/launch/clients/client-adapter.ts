/**
 * One agent CLI as toolmask runs it: the shape every folder of launch/clients/ exports from its
 * `index.ts`, and all that the commands know of a client. Each folder has the same files:
 *
 *   index.ts   the adapter: its name, its binary, its commands' help, and the rest loaded lazily
 *   args.ts    its command line: toolmask's options of its own, the client's flags read or rewritten
 *   config.ts  where the client keeps its settings, and how toolmask reads them
 *   launch.ts  `toolmask <name>`: the plan of a run through a gateway, and the client set up for it
 *   setup.ts   `toolmask setup <name>`: the plan of edits the one setup engine makes and takes back
 *
 * `index.ts` imports nothing heavy (the gateway's code costs a command a second at start):
 * `planLaunch` and `setup.plan` load launch.ts and setup.ts when a command runs them.
 */
import type { Environment } from '../environment.js';
import type { UpstreamReuse } from '../run/gateway-reuse.js';
import type { LaunchRequest, PlannedLaunch } from '../run/launch-plan.js';
import type { SetupPlanner } from '../setup/run-setup.js';

/** An option of a client's own on its launch command (`--keep-client-masking`). */
export interface LauncherOption {
  flags: string;
  description: string;
}

export interface ClientAdapter<Name extends string = string> {
  /** `toolmask <name>`, `toolmask setup <name>`, `--<name>-bin`, `TOOLMASK_<NAME>_BIN`. */
  readonly name: Name;
  /** Its executable (looked up on PATH unless named) and the npm package it comes in. */
  readonly binary: { command: string; npmPackage: string };
  /** `toolmask <name>`: its help (one line; examples and notes after the options) and options. */
  readonly launcher: {
    description: string;
    examples: string;
    options: readonly LauncherOption[];
    /**
     * The command that resumes the client's session through toolmask (`toolmask claude --resume
     * <id>`), said when the client exits: its own hint (`claude --resume <id>`) skips masking.
     */
    resumeCommand?: (clientSession: string) => string;
    /**
     * Whether the client runs headless with these arguments (`claude -p`, `codex exec`): it draws
     * no full-screen UI, so the launcher may print on the terminal while it runs (a fault, as it
     * happens: launch/run/unreachable-notice.ts). Absent: never headless by its arguments.
     */
    headless?: (args: readonly string[]) => boolean;
  };
  /**
   * Where the person's masking settings may live instead of gemini's, and the
   * `--masking-settings` help that says so: a `toolmask.json` beside the client's own config
   * (claude, codex, opencode: core's config/settingsPlace.ts), or, for a client that ignores keys
   * it does not know, its own user settings file (qwen). It wins over gemini's when it holds
   * masking settings (launch/run/masking-settings.ts).
   */
  readonly maskingSettings?: { help: string; ownFile(env: Environment): Promise<string> };
  /**
   * Folders where the client saves outputs it cut from the conversation itself (Claude Code's
   * persisted outputs), which a person's own gateway reads back and searches beside its own.
   */
  readonly savedOutputs?: (env: Environment) => Promise<string[]>;
  /** How its requests reach a gateway's upstreams: whether a running gateway may carry a run. */
  readonly reuse: UpstreamReuse;
  /** A run through a gateway: reads the person's settings (a LaunchError when it cannot route). */
  planLaunch(request: LaunchRequest): Promise<PlannedLaunch>;
  /** `toolmask setup <name>`. */
  readonly setup: {
    /** What setup changes, a paragraph of the setup command's help. */
    help: string;
    /** The `toolmask gateway` option the client's own base URL must be the value of, if any. */
    upstreamOption?: string;
    plan: SetupPlanner;
  };
}

/** An adapter, its name kept as a literal type (the registry's names are derived from it). */
export function defineClient<const Name extends string>(
  adapter: ClientAdapter<Name>,
): ClientAdapter<Name> {
  return adapter;
}

/**
 * Whether one of `options` (`-p`, `--print`, or with `=value`) or `commands` (`exec`, `run`) is
 * among `args` before a `--`: a loose reading of a client's command line, for `headless` only
 * (a wrong answer prints one line on a full-screen UI, or keeps it to the terminal title).
 */
export function givesAny(
  args: readonly string[],
  words: { options?: readonly string[]; commands?: readonly string[] },
): boolean {
  for (const arg of args) {
    if (arg === '--') return false;
    if (words.commands?.includes(arg)) return true;
    if (words.options?.some((option) => arg === option || arg.startsWith(`${option}=`))) {
      return true;
    }
  }
  return false;
}
