import { createServer, request } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { bindEarlyListener } from './early-listener.js';

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('bindEarlyListener', () => {
  it('holds a request that comes before the server exists and hands it over, with later ones', async () => {
    const listener = await bindEarlyListener();
    expect(listener.url).toBe(`http://127.0.0.1:${listener.port}`);
    const early = get(`${listener.url}/first`);
    // The request is on its way (or waiting) before there is anything to answer it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const server = createServer((req, res) => res.end(`served ${req.url}`));
    listener.adopt(server);
    expect(await early).toEqual({ status: 200, body: 'served /first' });
    expect(await get(`${listener.url}/second`)).toEqual({ status: 200, body: 'served /second' });
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await listener.close();
  });

  it('closes the connections still waiting when it closes without a server', async () => {
    const listener = await bindEarlyListener();
    const socket = connect(listener.port, '127.0.0.1');
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.on('connect', resolve));
    await new Promise((resolve) => setTimeout(resolve, 20));
    await listener.close();
    await closed;
    expect(socket.destroyed).toBe(true);
  });
});
