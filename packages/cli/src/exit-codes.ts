/**
 * Exit codes: 0 done, 1 failure, 2 bad usage or bad input. Apart from `CliError` (cli-error.ts,
 * which re-exports them) so that what `toolmask --version` loads (index.ts, output-guard.ts)
 * needs no package: `CliError` extends core's `ToolmaskError` (issue 30: start-up CPU).
 */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
