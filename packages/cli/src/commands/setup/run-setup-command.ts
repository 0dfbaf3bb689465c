/**
 * What `toolmask setup <client> [--undo]` does once parsed (setup-command.ts declares it): the
 * gateway address to write (gateway-address.ts) and what answers there, the client's plan carried
 * out (launch/setup/run-setup.ts), or taken back; every line said, and the exit code. A refusal
 * (a `LaunchError`: a file setup cannot follow, a conflicting edit, a set-up client set up again)
 * is bad usage, exit 2; `--undo` that leaves a file it could not put back, exit 1; `--undo` with
 * nothing to undo, said, exit 0.
 */
import { EXIT_FAILURE, EXIT_OK, usageError } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';
import type { ClientAdapter } from '../../launch/clients/client-adapter.js';
import { LaunchError } from '../../launch/launch-error.js';
import { applyClientSetup, undoClientSetup } from '../../launch/setup/run-setup.js';
import { NothingToUndoError } from '../../launch/setup/setup-files.js';
import { chooseGatewayAddress, describeGatewayAddress, probeGateway } from './gateway-address.js';

/** An http:// or https:// URL, or a usage error naming the option. */
function checkGatewayUrl(value: string | undefined): void {
  if (value === undefined) return;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw usageError(
      `--gateway ${JSON.stringify(value)} is not an http:// or https:// URL (e.g. http://127.0.0.1:8787)`,
    );
  }
}

/** `--undo`: every file put back that can be; the others said on stderr, exit 1. */
async function undo(client: ClientAdapter, stateDir: string, io: CliIo): Promise<number> {
  let report;
  try {
    report = await undoClientSetup({ client: client.name, stateDir });
  } catch (error) {
    // A second --undo: already as it was (exit 0, as `git stash pop` habits expect).
    if (!(error instanceof NothingToUndoError)) throw error;
    io.stdout.write(`${error.message}\n`);
    return EXIT_OK;
  }
  for (const line of report.lines) io.stdout.write(`${line}\n`);
  // Every other file is put back; these stay in the record for another --undo.
  for (const line of report.failures) io.stderr.write(`${line}\n`);
  if (report.failures.length > 0) {
    io.stderr.write(
      `${report.failures.length === 1 ? 'That file was' : 'Those files were'} left as they are: fix what is said and run \`toolmask setup ${client.name} --undo\` again.\n`,
    );
  }
  return report.failures.length > 0 ? EXIT_FAILURE : EXIT_OK;
}

async function apply(
  client: ClientAdapter,
  options: { gateway?: string; stateDir: string },
  io: CliIo,
): Promise<number> {
  const { stateDir } = options;
  checkGatewayUrl(options.gateway);
  const address = await chooseGatewayAddress(options.gateway, stateDir);
  const probe = await probeGateway(address.url);
  // The upstreams are known only for the gateway running for the state folder.
  const running = address.running?.url === address.url ? address.running : undefined;
  const { lines } = await applyClientSetup({
    client: client.name,
    plan: client.setup.plan,
    gatewayUrl: address.url,
    stateDir,
    env: io.env,
    ...(running ? { gatewayUpstreams: running.upstreams ?? {}, gatewayPid: running.pid } : {}),
    gatewayLines: describeGatewayAddress(address, probe, stateDir, client.name),
    cwd: io.cwd,
  });
  for (const line of lines) io.stdout.write(`${line}\n`);
  return EXIT_OK;
}

/** Runs `toolmask setup <client>` (or its `--undo`); resolves to the exit code. */
export async function runSetupCommand(
  client: ClientAdapter,
  options: { undo?: boolean; gateway?: string; stateDir: string },
  io: CliIo,
): Promise<number> {
  try {
    return options.undo
      ? await undo(client, options.stateDir, io)
      : await apply(client, options, io);
  } catch (error) {
    if (error instanceof LaunchError) throw usageError(error.message);
    throw error;
  }
}
