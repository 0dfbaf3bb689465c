/**
 * What the tests that start real servers (redis-server, haproxy, prometheus, gateways) share: a
 * free loopback port, and whether this is CI, where a server that is absent fails its tests
 * instead of skipping them.
 */
import * as net from 'node:net';

/** `CI` set to anything but empty or `false`. */
export function inCi(): boolean {
  const value = process.env['CI'] ?? '';
  return value !== '' && value !== 'false';
}

/** A free loopback port: taken and let go (another process may take it before the caller does). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
