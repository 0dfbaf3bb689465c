/**
 * The in-flight body budget against a stranger (finding 1's "bounded everything", issue 21's
 * budget): a replica holds at most `--max-in-flight-body-mb` (default: `--max-body-mb`, 64) of
 * request bodies at once, and a body that declares its length takes its room before a byte is
 * read. A made-up provider key passes admission (its owner proves nothing, but is an owner), so
 * one connection that declares 64 MiB and then sends nothing holds the whole budget until the
 * replica's 5-minute request limit; meanwhile every request with a body is answered 503 `BUSY`.
 */
import * as net from 'node:net';
import { served } from './lib/probes.mjs';
import { sleep } from './lib/verdict.mjs';
import { GEMINI_PATH } from './lib/world.mjs';

const MIB = 1024 * 1024;

/** A request with a made-up key that declares `bytes` of body and sends none of it. */
function silentUpload(port, bytes) {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.on('connect', () =>
    socket.write(
      `POST /gemini${GEMINI_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-goog-api-key: made-up-silent\r\ncontent-type: application/json\r\ncontent-length: ${bytes}\r\n\r\n`,
    ),
  );
  return socket;
}

const silentBodies = {
  title: 'one connection per replica that declares a 64 MiB body and sends none of it',
  property:
    "a stranger cannot take the in-flight body budget with a body they never send: Alice's turns are answered 200 within 3 s while such connections are open, on each replica and through HAProxy",
  async run(world, evidence) {
    const replicas = [world.r1, world.r2];
    const sockets = replicas.map((replica) => silentUpload(replica.port, 64 * MIB));
    try {
      await sleep(1_000);
      for (const replica of replicas) {
        const alice = await served(world, replica);
        evidence.check(
          alice.status === 200 && alice.ms < 3_000,
          `Alice on ${replica.name} while it holds the silent upload: ${alice.status} in ${alice.ms} ms`,
        );
      }
      const through = await served(world, world.haproxy);
      evidence.check(
        through.status === 200 && through.ms < 3_000,
        `Alice through HAProxy: ${through.status} in ${through.ms} ms`,
      );
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  },
};

export default [silentBodies];
