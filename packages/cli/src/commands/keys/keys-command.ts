/** Declares `toolmask keys` (create, list, revoke) and hands over to run-keys.ts. */
import { Command } from 'commander';
import type { CliIo } from '../../cli-io.js';
import type { KeysOptions } from './run-keys.js';

const EXAMPLES = `
Examples:
  $ toolmask keys create --store redis://10.0.0.5:6379 --name alice
  $ toolmask keys list --store redis://10.0.0.5:6379
  $ toolmask keys revoke --store redis://10.0.0.5:6379 --name alice

A virtual key (tmk_...) is what a person of the team puts in their client in place of the
provider key: the team gateway (toolmask gateway --store ... --provider-key-env NAME) sends the
team's provider key upstream in its place, and answers that person about their own sessions and
outputs only. The key is printed once, on stdout; the store keeps only its SHA-256.
Exit codes: 0 done, 1 the store failed (or no such key to revoke), 2 bad usage.`;

export function createKeysCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  const run = (action: 'create' | 'list' | 'revoke') => async (options: KeysOptions) => {
    // Loaded when run: the gateway's code costs every other command a second at start.
    const { runKeys } = await import('./run-keys.js');
    setExitCode(await runKeys(action, options, io));
  };
  const store = ['--store <url>', "the team gateway's Redis, redis://HOST:PORT[/DB]"] as const;
  const keys = new Command('keys')
    .description("Manage a team gateway's virtual keys (one per person).")
    .addHelpText('after', EXAMPLES);
  keys
    .command('create')
    .description('Make a key for a person and print it (once).')
    .requiredOption(...store)
    .requiredOption('--name <name>', 'who it is for: 1 to 64 of a-z 0-9 . _ -')
    .action(run('create'));
  keys
    .command('list')
    .description("List the keys' names and when each was made (never the keys).")
    .requiredOption(...store)
    .option('--json', 'print JSON')
    .action(run('list'));
  keys
    .command('revoke')
    .description('Remove a key: replicas refuse it within a minute.')
    .requiredOption(...store)
    .requiredOption('--name <name>', 'the key to remove')
    .action(run('revoke'));
  return keys;
}
