/**
 * An S3-compatible server for tests (s3rver, programmatic API): on a free loopback port, its data
 * in a temporary folder removed by `stop()`. Clients reach it with `endpoint`, path-style
 * addressing and `S3_SERVER_CREDENTIALS` (s3rver knows that one key pair; it does not check V4
 * signatures, only that the key id exists).
 *
 * s3rver 3.7.1 encrypts ListObjectsV2 continuation tokens with single DES, which Node 17+ (OpenSSL
 * 3) no longer offers: any truncated list page fails with InternalError. `allowDesTokens` maps
 * `des` onto triple DES with the key repeated three times, the same cipher (K, K, K is single
 * DES) from OpenSSL's default provider, in this process only; no other code can call `des` here
 * anyway, since Node throws for it.
 */
import type * as crypto from 'node:crypto';
import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** The key pair s3rver accepts; test code only. */
export const S3_SERVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** What this helper uses of s3rver (the package ships no types). */
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverClass = new (options: {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  configureBuckets: Array<{ name: string }>;
  /** Off: requests use path-style addressing, and a Host header is never a bucket. */
  vhostBuckets: boolean;
}) => S3rverInstance;

export interface S3Server {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  credentials: typeof S3_SERVER_CREDENTIALS;
  /** Closes the server and removes its data. */
  stop(): Promise<void>;
}

let desAllowed = false;

function allowDesTokens(require: NodeRequire): void {
  if (desAllowed) return;
  desAllowed = true;
  // The module object s3rver gets from require('crypto'), patched where it looks the calls up.
  const shared = require('node:crypto') as typeof crypto;
  const tripleDes = <F extends (...args: never[]) => unknown>(original: F): F =>
    ((...args: unknown[]) => {
      const [algorithm, key, iv] = args;
      const des = algorithm === 'des' && Buffer.isBuffer(key);
      return des
        ? Reflect.apply(original, shared, ['des-ede3-cbc', Buffer.concat([key, key, key]), iv])
        : Reflect.apply(original, shared, args);
    }) as unknown as F;
  shared.createCipheriv = tripleDes(shared.createCipheriv);
  shared.createDecipheriv = tripleDes(shared.createDecipheriv);
}

export async function startS3Server(options: { buckets: string[] }): Promise<S3Server> {
  const require = createRequire(import.meta.url);
  allowDesTokens(require);
  // s3rver is CommonJS without types: loaded through require and typed above.
  const S3rver = require('s3rver') as S3rverClass;
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: options.buckets.map((name) => ({ name })),
    vhostBuckets: false,
  });
  let address: AddressInfo;
  try {
    address = await server.run();
  } catch (error) {
    await fs.rm(directory, { recursive: true, force: true });
    throw error;
  }
  let stopped = false;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    credentials: S3_SERVER_CREDENTIALS,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.close();
      await fs.rm(directory, { recursive: true, force: true });
    },
  };
}
