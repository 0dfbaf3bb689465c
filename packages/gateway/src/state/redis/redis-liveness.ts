/**
 * Whether Redis answers, so that a Redis that froze (a connection still open, nothing answered:
 * a stopped process, a full network buffer) costs a request at most one command's limit, not one
 * limit per command (issue 33, finding 7):
 *
 * - `watchLiveness(client)`: once a command of the client times out, a PING confirms it (a command
 *   also times out when this process's own event loop was busy past its limit, the answer already
 *   there); when that PING times out too, Redis counts as
 *   unresponsive: every command sent on that client then fails at once with `StoreUnavailableError`
 *   (as commands do while the connection is down: there is no offline queue), and a PING is sent
 *   every `probeEveryMs` until one is answered; then commands go through again.
 * - `whileAnswering(liveness, work)`: work on another connection with a longer limit (an output
 *   of tens of MB, on the outputs' connection: 5 s) waits only while Redis answers: a PING goes on
 *   the watched client when it starts and every `probeEveryMs` while it runs, and the wait ends
 *   with `StoreUnavailableError` as soon as one times out. The work itself is left to finish or
 *   time out on its own (its result is dropped).
 */
import type { Redis } from 'ioredis';
import { StoreUnavailableError } from '../../errors.js';

export interface RedisLiveness {
  /** False from a command's timeout until a PING is answered again. */
  readonly answering: boolean;
  /** Sends one PING (shared with any in flight); resolves whether Redis answered it. */
  probe(): Promise<boolean>;
  /** Called each time Redis stops answering; returns the unsubscribe. */
  onStopped(listener: () => void): () => void;
  readonly probeEveryMs: number;
  /** The message of the error commands fail with meanwhile. */
  readonly message: string;
}

type SendCommand = Redis['sendCommand'];
type SentCommand = Parameters<SendCommand>[0];

/** ioredis's message for a command that hit `commandTimeout`. */
const TIMED_OUT = 'Command timed out';
/**
 * How far past its limit a PING's timeout may fire and still count: later, this process's event
 * loop was busy (a large body parsed, an output of tens of MB copied) while the answer may have
 * been waiting unread, since timers run before sockets are read. Such a PING is sent once more
 * before Redis counts as not answering (issue 33, finding 8: one person's large reads made the
 * PING late, and everyone's reads and saves failed).
 */
const LATE_MS = 100;

/**
 * Watches `client` (its command limit `commandTimeoutMs`): see the module comment. `what` names
 * the store in messages (no password).
 */
export function watchLiveness(
  client: Redis,
  options: { commandTimeoutMs: number; what: string },
): RedisLiveness {
  const listeners = new Set<() => void>();
  const message = `${options.what} did not answer within ${options.commandTimeoutMs} ms; retry in a moment`;
  let answering = true;
  let lateInARow = 0;
  let probing: Promise<boolean> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const stopped = () => {
    if (!answering) return;
    answering = false;
    for (const listener of [...listeners]) listener();
    schedule();
  };
  const schedule = () => {
    if (timer || answering || client.status === 'end') return;
    timer = setTimeout(() => {
      timer = undefined;
      void liveness.probe().then((ok) => (ok ? undefined : schedule()));
    }, options.commandTimeoutMs);
    timer.unref();
  };

  const liveness: RedisLiveness = {
    get answering() {
      return answering;
    },
    probeEveryMs: options.commandTimeoutMs,
    message,
    probe() {
      probing ??= client
        .ping()
        .then(
          () => ((answering = true), (lateInARow = 0), true),
          () => false,
        )
        .finally(() => {
          probing = undefined;
        });
      return probing;
    },
    onStopped(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };

  guardCommands(
    client,
    () => answering,
    message,
    (isProbe, sentAt) => {
      // A PING that times out means Redis stopped answering, unless its timeout fired late (then
      // once more: LATE_MS). Any other command may have timed out because this process's own
      // event loop was busy (a large body parsed) while its answer waited, unread: a PING sent
      // now confirms, or not, before every command is refused.
      if (!isProbe) {
        void liveness.probe();
      } else if (
        performance.now() - sentAt > options.commandTimeoutMs + LATE_MS &&
        lateInARow++ === 0
      ) {
        // After this PING's own handlers (its probe ends), and after the sockets are read.
        setImmediate(() => void liveness.probe());
      } else {
        lateInARow = 0;
        stopped();
      }
    },
  );
  return liveness;
}

/**
 * Refuses `client`'s commands at once (but PINGs) while `isAnswering()` is false, and tells
 * `onTimeout` of each command that timed out, with when it was sent.
 */
function guardCommands(
  client: Redis,
  isAnswering: () => boolean,
  message: string,
  onTimeout: (isProbe: boolean, sentAt: number) => void,
): void {
  const send = client.sendCommand.bind(client) as (
    command: SentCommand,
    stream?: unknown,
  ) => Promise<unknown>;
  client.sendCommand = ((command: SentCommand, stream?: unknown) => {
    const isProbe = command.name.toLowerCase() === 'ping';
    if (!isAnswering() && !isProbe) {
      command.reject(new StoreUnavailableError('STORE_UNAVAILABLE', message));
      return command.promise;
    }
    const sent = send(command, stream);
    const sentAt = performance.now();
    sent.catch((error: unknown) => {
      if (error instanceof Error && error.message === TIMED_OUT) onTimeout(isProbe, sentAt);
    });
    return sent;
  }) as SendCommand;
}

/** `work`'s result, or `StoreUnavailableError` as soon as `liveness` finds Redis not answering. */
export function whileAnswering<T>(liveness: RedisLiveness, work: () => Promise<T>): Promise<T> {
  if (!liveness.answering) {
    return Promise.reject(new StoreUnavailableError('STORE_UNAVAILABLE', liveness.message));
  }
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const finish = (settle: () => void) => {
      if (done) return;
      done = true;
      clearInterval(timer);
      unsubscribe();
      settle();
    };
    const unsubscribe = liveness.onStopped(() =>
      finish(() => reject(new StoreUnavailableError('STORE_UNAVAILABLE', liveness.message))),
    );
    const check = () =>
      void liveness.probe().then((ok) => {
        if (!ok && !liveness.answering) {
          finish(() => reject(new StoreUnavailableError('STORE_UNAVAILABLE', liveness.message)));
        }
      });
    const timer = setInterval(check, liveness.probeEveryMs);
    timer.unref();
    check();
    work().then(
      (value) => finish(() => resolve(value)),
      (error: unknown) => finish(() => reject(error)),
    );
  });
}
