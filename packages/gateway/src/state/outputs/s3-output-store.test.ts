import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { startS3Server, type S3Server } from '@toolmask/test-support/s3-server';
import { describeSharedOutputStore } from '../../test-utils/output-store-contract.js';
import { createS3OutputStore, type S3OutputStoreOptions } from './s3-output-store.js';

const BUCKET = 'toolmask-outputs';
const ROOT = '/srv/toolmask';
const FOLDER = `${ROOT}/tool-outputs/session-a`;

let server: S3Server;
beforeAll(async () => {
  server = await startS3Server({ buckets: [BUCKET] });
});
afterAll(async () => {
  await server?.stop();
});

/** A store on the test server, under a prefix of its own. */
function openStore(options: Partial<S3OutputStoreOptions> = {}) {
  return createS3OutputStore({
    bucket: BUCKET,
    prefix: `team/${randomBytes(6).toString('hex')}`,
    endpoint: server.endpoint,
    root: ROOT,
    credentials: server.credentials,
    ...options,
  });
}

/** A plain client on the test server, to look at the bucket as it is. */
function bucketClient() {
  return new S3Client({
    region: 'us-east-1',
    endpoint: server.endpoint,
    forcePathStyle: true,
    credentials: server.credentials,
  });
}

async function keysUnder(prefix: string): Promise<string[]> {
  const client = bucketClient();
  try {
    const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
    return (page.Contents ?? []).map((object) => object.Key as string).sort();
  } finally {
    client.destroy();
  }
}

describeSharedOutputStore('s3 (s3rver)', async () => ({
  store: openStore(),
  cleanup: async () => {},
}));

describe('createS3OutputStore', () => {
  const cleanups = cleanUpAfterEach();

  function store(options: Partial<S3OutputStoreOptions> = {}) {
    const opened = openStore(options);
    cleanups.push(() => opened.close());
    return opened;
  }

  it('keeps outputs at <prefix>/tool-outputs/<conversation>/<file>, and only there', async () => {
    const outputs = store({ prefix: '/team/one/' });
    await outputs.save(FOLDER, 'shell.call-1.0123456789abcdef.txt', 'one');
    expect(await keysUnder('team/one/')).toEqual([
      'team/one/tool-outputs/session-a/shell.call-1.0123456789abcdef.txt',
    ]);
    const neighbour = store({ prefix: 'team/two' });
    expect(await neighbour.read('tool-outputs/session-a/shell.call-1.0123456789abcdef.txt')).toBe(
      undefined,
    );
  });

  it('with no prefix, keys start at tool-outputs/', async () => {
    const outputs = store({ prefix: '' });
    await outputs.save(FOLDER, 'shell.call-9.0123456789abcdef.txt', 'top');
    expect(await keysUnder('tool-outputs/session-a/shell.call-9')).toEqual([
      'tool-outputs/session-a/shell.call-9.0123456789abcdef.txt',
    ]);
    expect(await outputs.prune(Date.now() + 60_000)).toBe(1);
  });

  it('prune leaves other objects under the prefix alone', async () => {
    const outputs = store({ prefix: 'team/three' });
    await outputs.save(FOLDER, 'shell.call-1.0123456789abcdef.txt', 'one');
    const client = bucketClient();
    try {
      await client.send(
        new PutObjectCommand({ Bucket: BUCKET, Key: 'team/three/notes.txt', Body: 'mine' }),
      );
    } finally {
      client.destroy();
    }
    expect(await outputs.prune(Date.now() + 60_000)).toBe(1);
    expect(await keysUnder('team/three/')).toEqual(['team/three/notes.txt']);
  });

  it('prunes page after page (a list page of 3 keys, 11 outputs)', async () => {
    const outputs = store({ listPageSize: 3 });
    const names = Array.from({ length: 11 }, (_, index) => `t.call-${index}.0123456789abcdef.txt`);
    await Promise.all(names.map((name) => outputs.save(FOLDER, name, name)));
    expect(await outputs.prune(Date.now() - 60_000)).toBe(0);
    expect(await outputs.prune(Date.now() + 60_000)).toBe(11);
    for (const name of names) {
      expect(await outputs.read(`tool-outputs/session-a/${name}`)).toBe(undefined);
    }
  });

  it('prunes what was saved before beforeMs, keeps what was saved after', async () => {
    const outputs = store();
    await outputs.save(FOLDER, 'old.call-1.0123456789abcdef.txt', 'old');
    // LastModified is whole seconds: an object counts as older only a second past its time.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const beforeMs = Date.now();
    await outputs.save(FOLDER, 'new.call-2.0123456789abcdef.txt', 'new');
    expect(await outputs.prune(beforeMs)).toBe(1);
    expect(await outputs.read('tool-outputs/session-a/old.call-1.0123456789abcdef.txt')).toBe(
      undefined,
    );
    expect(
      (await outputs.read('tool-outputs/session-a/new.call-2.0123456789abcdef.txt'))?.toString(),
    ).toBe('new');
  });

  it('rejects a missing bucket instead of reading it as a missing output', async () => {
    const outputs = store({ bucket: 'no-such-bucket' });
    await expect(
      outputs.read('tool-outputs/session-a/shell.call-1.0123456789abcdef.txt'),
    ).rejects.toMatchObject({ name: 'NoSuchBucket' });
  });

  it('refuses a prefix with an empty, "." or ".." part', () => {
    for (const prefix of ['a//b', 'a/../b', './a']) {
      expect(() => openStore({ prefix })).toThrow(/prefix/);
    }
  });

  it('gives up on a request after requestTimeoutMs', async () => {
    // A server that accepts and never answers.
    const silent = http.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    });
    const { port } = silent.address() as AddressInfo;
    const outputs = store({ endpoint: `http://127.0.0.1:${port}`, requestTimeoutMs: 300 });
    const started = Date.now();
    await expect(
      outputs.read('tool-outputs/session-a/shell.call-1.0123456789abcdef.txt'),
    ).rejects.toMatchObject({ code: 'TIMEOUT' });
    await expect(outputs.save(FOLDER, 'a.txt', 'a')).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
