#!/usr/bin/env node
/** The `toolmask` binary: the program on the process's streams, a closed pipe ending it quietly. */
import { finalExitCode, guardOutput } from './output-guard.js';
import { runCli } from './program.js';

const stdout = guardOutput(process.stdout);
const stderr = guardOutput(process.stderr);
const code = await runCli(process.argv.slice(2), {
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
await stdout.flush();
process.exitCode = finalExitCode(code, stdout, stderr);
