/**
 * `toolmask setup <client> [--undo]`: make the plain client use a gateway that runs on its own
 * (`toolmask gateway`, e.g. a systemd user service), by editing its user settings (comments kept,
 * a backup kept, the change recorded so `--undo` puts back exactly it). The clients are the
 * registry's (launch/clients/), each with its own plan of edits (its `setup.ts`), all carried out
 * and taken back by one engine (launch/setup/). The help says what each client's setup changes,
 * from its adapter. The run itself is run-setup-command.ts, loaded when the command runs.
 */
import { Command, InvalidArgumentError } from 'commander';
import type { CliIo } from '../../cli-io.js';
import { CLIENTS, clientNamed, type Client } from '../../launch/clients/index.js';
import { defaultStateDir } from '../../launch/state-dir.js';
import { listWords } from '../../render/format.js';

const NAMES = CLIENTS.map((client) => client.name);

/** The examples, what each client's setup changes, and how the address is chosen. */
function examples(): string {
  const checked = CLIENTS.filter((client) => client.setup.upstreamOption !== undefined);
  const options = [...new Set(checked.map((client) => client.setup.upstreamOption))];
  return `
Examples:
  $ toolmask setup gemini
  $ toolmask setup qwen --gateway http://127.0.0.1:9000
  $ toolmask setup gemini --undo
  $ toolmask setup claude
  $ toolmask setup codex --undo

${CLIENTS.map((client) => client.setup.help).join('\n')} ${listWords(
    checked.map((client) => client.name),
    'and',
  )}: your own base URL must be the gateway's upstream
(${options.join(', ')}); setup refuses when the running gateway sends elsewhere.
Without --gateway, setup writes the address of the gateway running for the state folder (from its
gateway.json), else http://127.0.0.1:8787, and says whether a gateway answers there.`;
}

function parseClient(value: string): Client {
  const client = clientNamed(value);
  if (!client) throw new InvalidArgumentError(`expected ${listWords(NAMES, 'or')}.`);
  return client;
}

export function createSetupCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  return new Command('setup')
    .description(
      `Point your plain ${listWords(NAMES, 'or')} at a gateway you keep running (or undo it).`,
    )
    .argument('<client>', listWords(NAMES, 'or'), parseClient)
    .option('--undo', 'put back what setup changed')
    .option(
      '--gateway <url>',
      'the gateway to use (default: the one running for the state folder, from its gateway.json, else http://127.0.0.1:8787)',
    )
    .option(
      '--state-dir <dir>',
      'where the record of the change is kept (default ~/.toolmask/gateway)',
    )
    .addHelpText('after', examples())
    .action(
      async (client: Client, options: { undo?: boolean; gateway?: string; stateDir?: string }) => {
        // Loaded when run: the gateway's code costs every other command a second at start.
        const { runSetupCommand } = await import('./run-setup-command.js');
        const stateDir = options.stateDir ?? defaultStateDir(io.env);
        setExitCode(await runSetupCommand(client, { ...options, stateDir }, io));
      },
    );
}
