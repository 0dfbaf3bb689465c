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
  return new S3OutputStore(options);
}

/** The SDK's client for these options (path-style, with checksums only where S3 needs them, for an endpoint). */
function s3Client(options: S3OutputStoreOptions): S3Client {
  return new S3Client({
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
}

class S3OutputStore implements SharedOutputStore {
  readonly root: string;
  private readonly bucket: string;
  private readonly keyPrefix: string;
  private readonly outputsPrefix: string;
  private readonly requestTimeoutMs: number;
  private readonly listPageSize: number;
  private readonly client: S3Client;

  constructor(options: S3OutputStoreOptions) {
    this.root = checkRoot(options.root);
    this.bucket = options.bucket;
    this.keyPrefix = normalizePrefix(options.prefix);
    this.outputsPrefix = `${this.keyPrefix}tool-outputs/`;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.listPageSize = Math.max(1, Math.min(options.listPageSize ?? MAX_LIST_PAGE, MAX_LIST_PAGE));
    this.client = s3Client(options);
  }

  async save(directory: string, fileName: string, text: string): Promise<string> {
    const key = this.keyOf(placeOfSave(this.root, directory, fileName));
    // Encoded once (the SDK measures, checksums and sends it): a string would be re-encoded.
    const body = Buffer.from(text, 'utf8');
    await this.bounded(`saving ${this.where(key)}`, (signal) =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: body,
          ContentType: 'text/plain; charset=utf-8',
        }),
        { abortSignal: signal },
      ),
    );
    return path.join(directory, fileName);
  }

  async read(relativePath: string): Promise<Buffer | undefined> {
    const key = this.keyOf(placeOfRead(relativePath));
    return this.bounded(`reading ${this.where(key)}`, async (signal) => {
      let response;
      try {
        response = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }), {
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
  }

  async prune(beforeMs: number): Promise<number> {
    const cutoff = beforeMs - LAST_MODIFIED_PRECISION_MS;
    let removed = 0;
    const failed: string[] = [];
    let continuationToken: string | undefined;
    do {
      const page = await this.listPage(continuationToken);
      const expired = (page.Contents ?? [])
        .filter((object) => object.Key !== undefined && object.LastModified !== undefined)
        .filter((object) => (object.LastModified as Date).getTime() < cutoff)
        .map((object) => object.Key as string);
      // Deleting listed keys does not disturb the listing: its token resumes after a key.
      const result = await this.deleteKeys(expired);
      removed += result.deleted;
      failed.push(...result.failed);
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (continuationToken !== undefined);
    if (failed.length > 0) {
      throw new Error(
        `removed ${removed} expired outputs under ${this.where(this.outputsPrefix)}; ${failed.length} could not be deleted (${failed.slice(0, 3).join(', ')})`,
      );
    }
    return removed;
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  private keyOf(place: OutputPlace): string {
    return `${this.keyPrefix}${relativePathOf(place)}`;
  }

  private where(key: string): string {
    return `s3://${this.bucket}/${key}`;
  }

  /** Runs `call` with an abort signal that fires after the time limit; names what timed out. */
  private async bounded<T>(what: string, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const signal = AbortSignal.timeout(this.requestTimeoutMs);
    try {
      return await call(signal);
    } catch (error) {
      if (!signal.aborted) throw error;
      throw new SharedOutputError(
        'TIMEOUT',
        `${what} took longer than ${this.requestTimeoutMs} ms`,
        { cause: error },
      );
    }
  }

  /** One page of the outputs' listing, from `token` on. */
  private listPage(token: string | undefined) {
    return this.bounded(`listing ${this.where(this.outputsPrefix)}`, (signal) =>
      this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: this.outputsPrefix,
          MaxKeys: this.listPageSize,
          ContinuationToken: token,
        }),
        { abortSignal: signal },
      ),
    );
  }

  /** Deletes `keys` (at most 1000: one request); says how many went and which could not. */
  private async deleteKeys(keys: string[]): Promise<{ deleted: number; failed: string[] }> {
    if (keys.length === 0) return { deleted: 0, failed: [] };
    const result = await this.bounded(
      `deleting ${keys.length} objects under ${this.where(this.outputsPrefix)}`,
      (signal) =>
        this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.bucket,
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
