/** The options of a command that listens (`toolmask gateway`, `toolmask dashboard`): where, and the token. */
import type { Command } from 'commander';
import { parsePort } from '../option-parsers.js';

export function withListenOptions(command: Command, defaultPort: number): Command {
  return command
    .option(
      '--host <host>',
      'address to bind (anything but loopback needs --auth-token)',
      '127.0.0.1',
    )
    .option('--port <port>', 'port (0 picks a free one)', parsePort, defaultPort)
    .option('--auth-token <token>', 'required of every client (default $TOOLMASK_GATEWAY_TOKEN)');
}
