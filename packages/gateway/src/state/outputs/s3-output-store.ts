/**
 * Offloaded outputs in an S3 bucket (or an S3-compatible store: MinIO, Ceph, R2, ...), one object
 * per output at `<prefix>/tool-outputs/<conversation>/<file>`, so every replica reads what any
 * replica saved. Names are content-addressed: saving again overwrites the object with the same
 * bytes, which also refreshes its LastModified (a use, for `prune`).
 *
 * - Credentials come from the SDK's default chain (environment, shared config, SSO, instance or
 *   task role), unless given; this module never logs them, nor anything else.
 * - With `endpoint`, path-style addressing (`<endpoint>/<bucket>/<key>`): S3-compatible stores
 *   rarely serve bucket subdomains. Checksums are then only sent where S3 requires one, since
 *   several such stores reject the SDK's default CRC32 headers.
 * - Bounded time: each call (the SDK's retries and reading the body included) is aborted after
 *   `requestTimeoutMs` and rejects with `SharedOutputError` `TIMEOUT`.
 * - `prune(beforeMs)` is a sweep: it lists `<prefix>/tool-outputs/`, page by page, and deletes
 *   the objects last modified before `beforeMs`. The alternative, for a bucket of its own, is an
 *   S3 lifecycle rule expiring that prefix after the retention days: S3 then removes them itself
 *   and the sweep finds nothing.
 */
import * as path from 'node:path';
import { Readable, addAbortSignal } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import type { SharedOutputStore } from '../stores.js';
import {
  SharedOutputError,
  checkRoot,
  placeOfRead,
  placeOfSave,
  relativePathOf,
  type OutputPlace,
} from './output-paths.js';

export interface S3OutputStoreOptions {
  bucket: string;
  /** Key prefix, `/` between parts; leading and trailing `/` are ignored; '' is the bucket's top. */
  prefix: string;
  /** An S3-compatible store's URL (`http://127.0.0.1:9000`); addressed path-style. */
  endpoint?: string;
  /** @default the SDK's chain (`AWS_REGION`, shared config); `us-east-1` with an `endpoint` */
  region?: string;
  /** The absolute path outputs are named under in snippets, the same on every replica. */
  root: string;
  /** @default the SDK's default credential chain. Explicit keys: tests, fixed-key stores. */
  credentials?: S3ClientConfig['credentials'];
  /** Time limit of one call, retries included. @default 30_000 */
  requestTimeoutMs?: number;
  /** Keys per list page in `prune`. @default 1000 (S3's maximum); smaller in tests. */
  listPageSize?: number;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const MAX_LIST_PAGE = 1000;
/**
 * LastModified is whole seconds on S3: an object saved at 10.7 s says 10.0 s. It is removed only
 * when it was certainly saved before `beforeMs`, so one saved just after is never taken.
 */
const LAST_MODIFIED_PRECISION_MS = 1000;

export function createS3OutputStore(options: S3OutputStoreOptions): SharedOutputStore {
  const root = checkRoot(options.root);
  const bucket = options.bucket;
  const keyPrefix = normalizePrefix(options.prefix);
  const outputsPrefix = `${keyPrefix}tool-outputs/`;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const listPageSize = Math.max(1, Math.min(options.listPageSize ?? MAX_LIST_PAGE, MAX_LIST_PAGE));
  const client = new S3Client({
    region: options.region ?? (options.endpoint !== undefined ? 'us-east-1' : undefined),
    ...(options.endpoint !== undefined
      ? {
          endpoint: options.endpoint,
          forcePathStyle: true,
          requestChecksumCalculation: 'WHEN_REQUIRED',
          responseChecksumValidation: 'WHEN_REQUIRED',
        }
      : {}),
    ...(options.credentials !== undefined ? { credentials: options.credentials } : {}),
  });

  const keyOf = (place: OutputPlace) => `${keyPrefix}${relativePathOf(place)}`;
  const where = (key: string) => `s3://${bucket}/${key}`;

  /** Runs `call` with an abort signal that fires after the time limit; names what timed out. */
  async function bounded<T>(what: string, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const signal = AbortSignal.timeout(requestTimeoutMs);
    try {
      return await call(signal);
    } catch (error) {
      if (!signal.aborted) throw error;
      throw new SharedOutputError('TIMEOUT', `${what} took longer than ${requestTimeoutMs} ms`, {
        cause: error,
      });
    }
  }

  /** Deletes `keys` (at most 1000: one request); says how many went and which could not. */
  async function deleteKeys(keys: string[]): Promise<{ deleted: number; failed: string[] }> {
    if (keys.length === 0) return { deleted: 0, failed: [] };
    const result = await bounded(
      `deleting ${keys.length} objects under ${where(outputsPrefix)}`,
      (signal) =>
        client.send(
          new DeleteObjectsCommand({
            Bucket: bucket,
            // Quiet: the answer lists only the keys that could not be deleted.
            Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
          }),
          { abortSignal: signal },
        ),
    );
    const failed = (result.Errors ?? []).map(
      (failure) => `${failure.Key ?? '?'}: ${failure.Code ?? 'error'}`,
    );
    return { deleted: keys.length - failed.length, failed };
  }

  return {
    root,

    async save(directory, fileName, text) {
      const key = keyOf(placeOfSave(root, directory, fileName));
      // Encoded once (the SDK measures, checksums and sends it): a string would be re-encoded.
      const body = Buffer.from(text, 'utf8');
      await bounded(`saving ${where(key)}`, (signal) =>
        client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: key,
            Body: body,
            ContentType: 'text/plain; charset=utf-8',
          }),
          { abortSignal: signal },
        ),
      );
      return path.join(directory, fileName);
    },

    async read(relativePath) {
      const key = keyOf(placeOfRead(relativePath));
      return bounded(`reading ${where(key)}`, async (signal) => {
        let response;
        try {
          response = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }), {
            abortSignal: signal,
          });
        } catch (error) {
          if (isMissingObject(error)) return undefined;
          throw error;
        }
        const body = response.Body;
        if (body === undefined) return Buffer.alloc(0);
        // The signal covers the body too: a stalled download is destroyed at the limit.
        if (body instanceof Readable) return buffer(addAbortSignal(signal, body));
        return Buffer.from(await body.transformToByteArray());
      });
    },

    async prune(beforeMs) {
      const cutoff = beforeMs - LAST_MODIFIED_PRECISION_MS;
      let removed = 0;
      const failed: string[] = [];
      let continuationToken: string | undefined;
      do {
        const token = continuationToken;
        const page = await bounded(`listing ${where(outputsPrefix)}`, (signal) =>
          client.send(
            new ListObjectsV2Command({
              Bucket: bucket,
              Prefix: outputsPrefix,
              MaxKeys: listPageSize,
              ContinuationToken: token,
            }),
            { abortSignal: signal },
          ),
        );
        const expired = (page.Contents ?? [])
          .filter((object) => object.Key !== undefined && object.LastModified !== undefined)
          .filter((object) => (object.LastModified as Date).getTime() < cutoff)
          .map((object) => object.Key as string);
        // Deleting listed keys does not disturb the listing: its token resumes after a key.
        const result = await deleteKeys(expired);
        removed += result.deleted;
        failed.push(...result.failed);
        continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (continuationToken !== undefined);
      if (failed.length > 0) {
        throw new Error(
          `removed ${removed} expired outputs under ${where(outputsPrefix)}; ${failed.length} could not be deleted (${failed.slice(0, 3).join(', ')})`,
        );
      }
      return removed;
    },

    async close() {
      client.destroy();
    },
  };
}

/** `a/b/` from `/a/b/`, `a/b` or `a//b/`... refused; '' stays ''. */
function normalizePrefix(prefix: string): string {
  const trimmed = prefix.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  const parts = trimmed.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..')) {
    throw new SharedOutputError(
      'EINVAL',
      `S3 key prefix ${JSON.stringify(prefix)} has an empty, "." or ".." part`,
    );
  }
  return `${trimmed}/`;
}

function isMissingObject(error: unknown): boolean {
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  // A missing bucket is a configuration error, not a missing output.
  return name === 'NoSuchKey' || ($metadata?.httpStatusCode === 404 && name !== 'NoSuchBucket');
}
