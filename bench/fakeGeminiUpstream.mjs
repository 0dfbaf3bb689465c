/**
 * A loopback fake of the Gemini API for section 4, run as its own process so that its reading of
 * 1 MB bodies and its garbage collection do not share a thread with the client being timed. It
 * answers every request with one SSE event at once; the event carries the moment it was written
 * (`process.hrtime`, the system's monotonic clock, the same in every process), so the client can
 * time the first byte without sharing this process.
 *
 * Prints `listening on URL` once it accepts connections; ends on SIGTERM.
 */
import * as http from 'node:http';
import { serveOnLoopback } from './serveOnLoopback.mjs';

const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const event = {
      candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }],
      usageMetadata: {
        promptTokenCount: 1000,
        cachedContentTokenCount: 900,
        candidatesTokenCount: 1,
      },
      writtenAtNs: String(process.hrtime.bigint()),
    };
    response.end(`data: ${JSON.stringify(event)}\r\n\r\n`);
  });
});
serveOnLoopback(server);
