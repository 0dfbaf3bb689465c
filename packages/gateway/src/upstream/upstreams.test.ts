/**
 * The upstream URL of a request: a Vertex AI location from the path picks the regional host, so
 * only a real location name gets there; nothing in a path can move a request to another host.
 */
import * as net from 'node:net';
import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { listenGateway } from '../listen-gateway.js';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { gatewayFixture } from '../test-utils/gemini-client.js';
import { matchModelRoute } from '../protocols/model-routes.js';
import { DEFAULT_UPSTREAMS, upstreamTarget } from './upstreams.js';

const cleanups = cleanUpAfterEach();

const VERTEX_PATH = (location: string) =>
  `/vertex/v1/projects/p/locations/${location}/publishers/google/models/m:generateContent`;

function targetOf(url: string, upstreams = DEFAULT_UPSTREAMS) {
  return upstreamTarget(upstreams, matchModelRoute('POST', url));
}

describe('upstreamTarget', () => {
  it('a Vertex AI location picks its regional endpoint; global the global one', () => {
    expect(targetOf(VERTEX_PATH('us-central1'))).toEqual({
      kind: 'url',
      url: `https://us-central1-aiplatform.googleapis.com${VERTEX_PATH('us-central1').slice(7)}`,
    });
    expect(targetOf(VERTEX_PATH('global'))).toEqual({
      kind: 'url',
      url: `https://aiplatform.googleapis.com${VERTEX_PATH('global').slice(7)}`,
    });
  });

  it('refuses a location that is not a location name, whatever the upstream', () => {
    for (const location of [
      '127.0.0.1:9999\\',
      'evil.example',
      'x@evil.example',
      'US-CENTRAL1',
      '%2e',
      'a'.repeat(64),
    ]) {
      expect(targetOf(VERTEX_PATH(location))).toEqual({ kind: 'bad-location', location });
      expect(
        targetOf(VERTEX_PATH(location), { ...DEFAULT_UPSTREAMS, vertex: 'https://proxy.example' }),
      ).toEqual({ kind: 'bad-location', location });
    }
  });

  it('keeps the upstream origin for any other path', () => {
    const target = targetOf('/gemini/\\@evil.example/v1beta/models/m:generateContent');
    expect(target.kind).toBe('url');
    expect(new URL((target as { url: string }).url).origin).toBe(DEFAULT_UPSTREAMS.gemini);
  });
});

describe('the gateway and a Vertex AI location in the path', () => {
  it('answers 400 to a location that would pick the host, and fetches nothing', async () => {
    const fixture = await gatewayFixture();
    cleanups.push(fixture.cleanup);
    // Nothing reaches the network: a request no interceptor matches fails, and every call is noted.
    const upstream = new MockAgent({ enableCallHistory: true });
    upstream.disableNetConnect();
    upstream
      .get('https://europe-west4-aiplatform.googleapis.com')
      .intercept({ path: () => true, method: 'POST' })
      .reply(200, '{}', { headers: { 'content-type': 'application/json' } });
    cleanups.push(() => upstream.close());
    const fetched = () => upstream.getCallHistory()?.calls() ?? [];
    const running = await listenGateway({
      port: 0,
      stateDir: fixture.stateDir,
      settingsFile: fixture.settingsFile,
      _internal: { dispatcher: upstream },
    });
    cleanups.push(() => running.close());
    // A client's fetch would normalize the backslash: the request line goes out as it is.
    const send = (path: string) =>
      new Promise<string>((resolve, reject) => {
        const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
        const socket = net.connect(running.port, '127.0.0.1');
        let answer = '';
        socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-goog-api-key: SECRET\r\n` +
            `content-type: application/json\r\ncontent-length: ${body.length}\r\n` +
            `connection: close\r\n\r\n${body}`,
        );
      });
    const refused = await send(VERTEX_PATH('127.0.0.1:9999\\'));
    expect(refused.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(refused).toContain('is not a Vertex AI location');
    expect(fetched()).toEqual([]);
    const sent = await send(VERTEX_PATH('europe-west4'));
    expect(sent.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(fetched().map((call) => call.host)).toEqual(['europe-west4-aiplatform.googleapis.com']);
  });
});
