#!/usr/bin/env node
/**
 * The `toolmask` binary: the program on the process's streams, a closed pipe ending it quietly.
 * `toolmask --version` is answered before the program is loaded (its version is all it prints);
 * everything else goes through the program, whose commands load their own code when they run.
 */
import { finalExitCode, guardOutput } from './output-guard.js';
import { CLI_VERSION, isVersionRequest } from './version.js';

const stdout = guardOutput(process.stdout);
const stderr = guardOutput(process.stderr);
const args = process.argv.slice(2);
let code = 0;
if (isVersionRequest(args)) {
  stdout.write(`${CLI_VERSION}\n`);
} else {
  const { runCli } = await import('./program.js');
  code = await runCli(args, {
    stdout,
    stderr,
    env: process.env,
    cwd: process.cwd(),
    shutdownSignal: () =>
      new Promise((resolve) => {
        for (const signal of ['SIGINT', 'SIGTERM'] as const) {
          process.once(signal, () => resolve(signal));
        }
      }),
  });
}
await stdout.flush();
process.exitCode = finalExitCode(code, stdout, stderr);
