/**
 * `toolmask keys create|list|revoke`: the team's virtual keys in its Redis (the gateway's
 * redis-virtual-keys.ts). A store that does not answer within a few seconds is a failure (exit
 * 1), a bad URL or name bad usage (exit 2).
 */
import { openTeamKeys } from '@toolmask/gateway';
import { EXIT_FAILURE, EXIT_OK, failure, usageError } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';
import { storeWithPassword } from '../store-password.js';

const READY_WAIT_MS = 5_000;

/** The options of `toolmask keys <action>` (keys-command.ts declares them). */
export interface KeysOptions {
  store: string;
  name?: string;
  json?: boolean;
}

export async function runKeys(
  action: 'create' | 'list' | 'revoke',
  options: KeysOptions,
  io: CliIo,
): Promise<number> {
  let opened: Awaited<ReturnType<typeof openTeamKeys>>;
  try {
    opened = await openTeamKeys(storeWithPassword(io, options.store), () => undefined);
  } catch (error) {
    throw usageError((error as Error).message);
  }
  try {
    if (!(await opened.ready(READY_WAIT_MS))) {
      throw failure(
        `the store at ${options.store.replace(/\/\/[^@/]*@/, '//***@')} does not answer`,
      );
    }
    const { keys } = opened;
    if (action === 'create') {
      const key = await reported(() => keys.create(options.name ?? ''));
      io.stdout.write(`${key}\n`);
      io.stderr.write(
        `toolmask keys: made a key for ${options.name}; it is shown this once (the store keeps only its SHA-256)\n`,
      );
      return EXIT_OK;
    }
    if (action === 'revoke') {
      const removed = await reported(() => keys.revoke(options.name ?? ''));
      if (!removed) {
        io.stderr.write(`toolmask keys: no key named ${options.name}\n`);
        return EXIT_FAILURE;
      }
      io.stderr.write(`toolmask keys: revoked ${options.name}\n`);
      return EXIT_OK;
    }
    const listed = await reported(() => keys.list());
    if (options.json) {
      io.stdout.write(`${JSON.stringify(listed)}\n`);
    } else {
      for (const info of listed) {
        io.stdout.write(`${info.name}\t${new Date(info.createdAt).toISOString()}\n`);
      }
    }
    return EXIT_OK;
  } finally {
    await opened.close();
  }
}

/** A store call whose error is told as bad usage (a bad name) or a failure (anything else). */
async function reported<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'BAD_NAME') throw usageError((error as Error).message);
    throw failure((error as Error).message);
  }
}
