/**
 * A team replica's 10 s headers limit (listen-gateway.ts) bounds the headers only: a body as large
 * as the replica takes (64 MiB), sent over a slow link for longer than that, is read whole and
 * answered. What bounds a slow body is the 5-minute request limit (64 MiB at 0.22 MB/s).
 */
import * as net from 'node:net';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { startMemoryTeamReplica } from '../test-utils/team-replica.js';
import { TEAM_HEADERS_TIMEOUT_MS } from '../listen-gateway.js';

const cleanups = cleanUpAfterEach();
const BODY_BYTES = 64 * 1024 * 1024 - 4096;
/** 4 MiB/s: the body takes 16 s, past the headers limit. */
const BYTES_PER_SECOND = 4 * 1024 * 1024;
const SLICE = 64 * 1024;

describe('a slow upload to a team replica', () => {
  it('a 64 MiB body sent for longer than the headers limit is answered', async () => {
    const { running } = await startMemoryTeamReplica(cleanups);
    // One user text of BODY_BYTES in all: what the replica reads, whole, before it answers.
    const head = '{"contents":[{"role":"user","parts":[{"text":"';
    const tail = '"}]}]}';
    const filler = BODY_BYTES - head.length - tail.length;
    const socket = net.connect(running.port, '127.0.0.1');
    cleanups.push(async () => void socket.destroy());
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const started = Date.now();
    socket.write(
      'POST /v1beta/models/m:generateContent HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
        `x-goog-api-key: a-key\r\ncontent-type: application/json\r\n` +
        `content-length: ${BODY_BYTES}\r\nconnection: close\r\n\r\n${head}`,
    );
    const slice = Buffer.alloc(SLICE, 'a');
    for (let sent = 0; sent < filler; sent += SLICE) {
      const due = started + ((sent + SLICE) / BYTES_PER_SECOND) * 1000;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
      socket.write(slice.subarray(0, Math.min(SLICE, filler - sent)));
    }
    socket.write(tail);
    await closed;
    const seconds = (Date.now() - started) / 1000;
    console.log(`64 MiB body at 4 MiB/s: answered after ${seconds.toFixed(1)} s`);
    expect(seconds * 1000).toBeGreaterThan(TEAM_HEADERS_TIMEOUT_MS);
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
  }, 120_000);
});
