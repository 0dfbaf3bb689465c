/**
 * A TCP link on loopback that carries a server's answers at a fixed rate per connection, as a
 * network between a gateway and its Redis would: what a client sends goes through at once (or at
 * `sendBytesPerSecond`), what the server sends back reaches the client at `bytesPerSecond`, in
 * order. Each connection has its own rate (one connection's large answers never slow another's),
 * so a test sees what a large answer queued on one connection costs the commands behind it,
 * whatever the machine's load.
 */
import * as net from 'node:net';

export interface SlowLink {
  /** `host:port` to connect to instead of the server's. */
  readonly port: number;
  /** Bytes the server has sent into the link so far, over every connection. */
  bytesReceived(): number;
  /** Resolves once `bytesReceived()` reaches `bytes`. */
  received(bytes: number): Promise<void>;
  close(): Promise<void>;
}

/** Bytes passed on per tick: small enough that the rate holds within a few milliseconds. */
const SLICE_BYTES = 64 * 1024;

/**
 * Passes what `from` sends on to `to` at `bytesPerSecond`, in order, a slice at a time;
 * `onChunk` sees each chunk as it comes in.
 */
function pace(
  from: net.Socket,
  to: net.Socket,
  bytesPerSecond: number,
  onChunk: (chunk: Buffer) => void,
): void {
  const queue: Buffer[] = [];
  let sending = false;
  let clock = performance.now();
  const send = () => {
    const next = queue.shift();
    if (!next || to.destroyed) {
      sending = false;
      return;
    }
    const slice = next.subarray(0, SLICE_BYTES);
    if (slice.length < next.length) queue.unshift(next.subarray(SLICE_BYTES));
    to.write(slice);
    clock = Math.max(clock, performance.now()) + (slice.length / bytesPerSecond) * 1_000;
    setTimeout(send, Math.max(0, clock - performance.now()));
  };
  from.on('data', (chunk: Buffer) => {
    onChunk(chunk);
    queue.push(chunk);
    if (!sending) {
      sending = true;
      send();
    }
  });
}

export interface SlowLinkOptions {
  /**
   * What a client sends reaches the server at this rate too, per connection (a large command, a
   * SET of tens of MB, holds its connection while it goes). @default at once
   */
  sendBytesPerSecond?: number;
}

export async function startSlowLink(
  target: number,
  bytesPerSecond: number,
  options: SlowLinkOptions = {},
): Promise<SlowLink> {
  const sockets = new Set<net.Socket>();
  let total = 0;
  const waiting: Array<{ bytes: number; resolve: () => void }> = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    if (options.sendBytesPerSecond) pace(client, upstream, options.sendBytesPerSecond, () => {});
    else client.pipe(upstream);
    pace(upstream, client, bytesPerSecond, (chunk) => {
      total += chunk.length;
      for (const waiter of waiting.filter((one) => one.bytes <= total)) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    bytesReceived: () => total,
    received: (bytes) =>
      bytes <= total
        ? Promise.resolve()
        : new Promise((resolve) => waiting.push({ bytes, resolve })),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
