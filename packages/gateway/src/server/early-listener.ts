/**
 * A loopback port taken before the gateway's code is loaded. A launcher binds it, starts its
 * client at once with the address, and loads the gateway meanwhile (a second of CPU and more:
 * the MCP SDK, OpenTelemetry, the pipeline). Connections that come first wait, paused, nothing
 * read from them, and go to the gateway's HTTP server when it is ready (`adopt`), which then
 * takes every later one too. If the gateway never comes, `close` drops them (the client sees the
 * connection closed, as with a gateway that stopped).
 */
import type { Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';

export interface EarlyListener {
  readonly port: number;
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  /** Hands the connections waiting, and every later one, to `server`. */
  adopt(server: HttpServer): void;
  /** Stops listening; connections not yet handed over are closed. */
  close(): Promise<void>;
}

function handOver(socket: Socket, server: HttpServer): void {
  server.emit('connection', socket);
  socket.resume();
}

/** Binds a free port on `host` (loopback). */
export function bindEarlyListener(host = '127.0.0.1'): Promise<EarlyListener> {
  const waiting: Socket[] = [];
  let target: HttpServer | undefined;
  const listener = createServer({ pauseOnConnect: true }, (socket) => {
    if (target) return handOver(socket, target);
    // A client that gives up before the gateway is ready must not end the process.
    socket.on('error', () => undefined);
    waiting.push(socket);
  });
  return new Promise((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(0, host, () => {
      const { port } = listener.address() as AddressInfo;
      resolve({
        port,
        url: `http://${host}:${port}`,
        adopt(server) {
          target = server;
          // What listen() would start: the server's connection tracking (its request timeouts).
          server.emit('listening');
          for (const socket of waiting.splice(0)) handOver(socket, server);
        },
        close() {
          for (const socket of waiting.splice(0)) socket.destroy();
          return new Promise((done) => listener.close(() => done()));
        },
      });
    });
  });
}
