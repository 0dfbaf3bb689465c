/**
 * Binding a server to a host and port, for the gateway and `toolmask dashboard` alike: loopback
 * unless told otherwise, any other address only with an auth token, a port in use reported as
 * such (the CLI exits 2).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isLoopbackHost } from './loopback.js';

export class GatewayStartError extends Error {
  constructor(
    message: string,
    readonly code: 'PORT_IN_USE' | 'NEEDS_AUTH_TOKEN' | 'LISTEN_FAILED',
  ) {
    super(message);
    this.name = 'GatewayStartError';
  }
}

/** Refuses an address beyond loopback without a token, before anything listens. */
export function checkBindable(host: string, authToken: string | undefined): void {
  if (!isLoopbackHost(host) && !authToken) {
    throw new GatewayStartError(
      `binding to ${host} (not loopback) needs --auth-token: anyone who can reach it could use your API keys`,
      'NEEDS_AUTH_TOKEN',
    );
  }
}

function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** Listens; resolves with the port (0 picks a free one) and the server's `http://host:port`. */
export async function listenOn(
  server: Server,
  host: string,
  port: number,
): Promise<{ port: number; url: string }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        reject(
          new GatewayStartError(
            `port ${port} on ${host} is already in use (another gateway? try --port 0 for a free one)`,
            'PORT_IN_USE',
          ),
        );
      } else {
        reject(
          new GatewayStartError(`cannot listen on ${host}: ${error.message}`, 'LISTEN_FAILED'),
        );
      }
    });
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return { port: bound, url: `http://${urlHost(host)}:${bound}` };
}
