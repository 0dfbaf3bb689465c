/**
 * Binding a server to a host and port, for the gateway and `toolmask dashboard` alike: loopback
 * unless told otherwise, any other address only with an auth token, a port in use reported as
 * such (the CLI exits 2).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayStartError } from '../errors.js';
import { isLoopbackHost } from './loopback.js';

/**
 * Refuses an address beyond loopback without a token, before anything listens. A team gateway
 * (`keyed`) asks every request for a key of its own, so it needs none.
 */
export function checkBindable(host: string, authToken: string | undefined, keyed = false): void {
  if (!isLoopbackHost(host) && !authToken && !keyed) {
    throw new GatewayStartError(
      'NEEDS_AUTH_TOKEN',
      `binding to ${host} (not loopback) needs --auth-token: anyone who can reach it could use your API keys`,
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
            'PORT_IN_USE',
            `port ${port} on ${host} is already in use (another gateway? try --port 0 for a free one)`,
          ),
        );
      } else {
        reject(
          new GatewayStartError('LISTEN_FAILED', `cannot listen on ${host}: ${error.message}`),
        );
      }
    });
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return { port: bound, url: `http://${urlHost(host)}:${bound}` };
}
