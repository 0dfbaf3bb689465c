/**
 * The `--outputs` flag of a team gateway: where offloaded outputs go so that every replica reads
 * them back. `s3://BUCKET/PREFIX` (an S3 bucket, keys under PREFIX; no PREFIX is the bucket's
 * top) or a folder every replica mounts (relative to the current directory when not absolute).
 * A bad value throws `OutputsOptionError`, its message naming the flag and the expected form.
 */
import * as path from 'node:path';
import { ToolmaskError } from '@toolmask/core/errors';

export type OutputsOption =
  { kind: 's3'; bucket: string; prefix: string } | { kind: 'dir'; path: string };

export class OutputsOptionError extends ToolmaskError<'BAD_OUTPUTS_OPTION'> {
  constructor(value: string, why: string) {
    super(
      'BAD_OUTPUTS_OPTION',
      `--outputs ${JSON.stringify(value)}: ${why}; expected s3://BUCKET/PREFIX or a directory`,
    );
  }
}

/**
 * S3's rules for general purpose bucket names: 3 to 63 characters, lowercase letters, digits,
 * dots and hyphens, starting and ending with a letter or digit, no `..`, not an IP address.
 */
function bucketNameProblem(bucket: string): string | undefined {
  if (bucket === '') return 'the bucket name is empty';
  if (bucket.length < 3 || bucket.length > 63) {
    return `bucket name ${JSON.stringify(bucket)} must be 3 to 63 characters long`;
  }
  if (!/^[a-z0-9][a-z0-9.-]*[a-z0-9]$/.test(bucket)) {
    return `bucket name ${JSON.stringify(bucket)} may hold only lowercase letters, digits, dots and hyphens, and must start and end with a letter or digit`;
  }
  if (bucket.includes('..')) return `bucket name ${JSON.stringify(bucket)} has two dots in a row`;
  if (/^\d+\.\d+\.\d+\.\d+$/.test(bucket)) {
    return `bucket name ${JSON.stringify(bucket)} is formatted as an IP address`;
  }
  return undefined;
}

/** `cwd`: what a relative folder is resolved against (for tests). */
export function parseOutputsOption(value: string, cwd: string = process.cwd()): OutputsOption {
  const fail = (why: string): never => {
    throw new OutputsOptionError(value, why);
  };
  if (value.trim() === '') fail('the value is empty');
  if (value.includes('\0')) fail('the value holds a NUL character');
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1];
  if (scheme === undefined) return { kind: 'dir', path: path.resolve(cwd, value) };
  if (scheme.toLowerCase() !== 's3') fail(`${scheme}:// is not supported (only s3://)`);

  const rest = value.slice(scheme.length + 3);
  const slash = rest.indexOf('/');
  const bucket = slash === -1 ? rest : rest.slice(0, slash);
  const problem = bucketNameProblem(bucket);
  if (problem !== undefined) fail(problem);
  const prefix = (slash === -1 ? '' : rest.slice(slash + 1)).replace(/\/+$/, '');
  if (
    prefix !== '' &&
    prefix.split('/').some((part) => part === '' || part === '.' || part === '..')
  ) {
    fail(`prefix ${JSON.stringify(prefix)} has an empty, "." or ".." part`);
  }
  return { kind: 's3', bucket, prefix };
}
