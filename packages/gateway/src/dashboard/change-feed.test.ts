/**
 * The dashboard's live feed is each viewer's own (issue 33, finding 11): a change reaches its
 * owner's streams and the admin's only, and strangers opening streams take nobody's place.
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  createChangeFeed,
  MAX_CLIENTS,
  MAX_STREAMS_PER_VIEWER,
  MAX_UNPROVEN_STREAMS,
} from './change-feed.js';

/** A response that keeps what is written to it. */
function stream() {
  const emitter = new EventEmitter();
  const fake = Object.assign(emitter, {
    status: 0,
    text: '',
    writeHead(status: number) {
      fake.status = status;
      return fake;
    },
    write(text: string) {
      fake.text += text;
      return true;
    },
    end(text?: string) {
      fake.text += text ?? '';
      return fake;
    },
  });
  return fake;
}

const asResponse = (fake: ReturnType<typeof stream>) => fake as unknown as ServerResponse;
const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the dashboard change feed', () => {
  it("a change of Alice's reaches her streams and the admin's, not a stranger's", async () => {
    const feed = createChangeFeed({ minIntervalMs: 0 });
    const alice = stream();
    const stranger = stream();
    const admin = stream();
    feed.attach(asResponse(alice), { owner: 'user:alice#1234abcd' });
    feed.attach(asResponse(stranger), { owner: 'key:made-up' });
    feed.attach(asResponse(admin), {});
    feed.notify('user:alice#1234abcd');
    await nextTurn();
    expect(alice.text).toContain('event: change');
    expect(admin.text).toContain('event: change');
    expect(stranger.text).not.toContain('event: change');
    feed.closeAll();
  });

  it('one viewer holds a few streams; 64 strangers leave Alice hers', () => {
    const feed = createChangeFeed();
    const mine = Array.from({ length: MAX_STREAMS_PER_VIEWER + 1 }, () => stream());
    for (const fake of mine) feed.attach(asResponse(fake), { owner: 'key:made-up-0' });
    expect(mine.map((fake) => fake.status)).toEqual([
      ...Array<number>(MAX_STREAMS_PER_VIEWER).fill(200),
      503,
    ]);
    for (let index = 1; index <= 64; index++) {
      feed.attach(asResponse(stream()), { owner: `key:made-up-${index}` });
    }
    const alice = stream();
    feed.attach(asResponse(alice), { owner: 'user:alice#1234abcd' });
    expect(alice.status).toBe(200);
    feed.closeAll();
  });

  it('strangers who proved nothing fill a pool of their own, never the streams of a proven owner', () => {
    const feed = createChangeFeed();
    // 130 made-up keys × 4 streams: more than the whole feed holds (attack A31).
    const strangers = Math.ceil((MAX_CLIENTS + 1) / MAX_STREAMS_PER_VIEWER);
    const statuses: number[] = [];
    for (let index = 0; index < strangers; index++) {
      for (let tab = 0; tab < MAX_STREAMS_PER_VIEWER; tab++) {
        const fake = stream();
        feed.attach(asResponse(fake), { owner: `key:made-up-${index}`, proven: false });
        statuses.push(fake.status);
      }
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(MAX_UNPROVEN_STREAMS);
    for (const owner of ['user:alice#1234abcd', 'key:bob-proven']) {
      const fake = stream();
      feed.attach(asResponse(fake), { owner, proven: true });
      expect(fake.status, owner).toBe(200);
    }
    feed.closeAll();
  });
});
