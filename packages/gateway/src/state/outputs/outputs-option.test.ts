import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OutputsOptionError, parseOutputsOption } from './outputs-option.js';

describe('parseOutputsOption', () => {
  it.each([
    ['s3://team-outputs/toolmask/prod', { bucket: 'team-outputs', prefix: 'toolmask/prod' }],
    ['s3://team-outputs/toolmask/', { bucket: 'team-outputs', prefix: 'toolmask' }],
    ['s3://team-outputs', { bucket: 'team-outputs', prefix: '' }],
    ['s3://team-outputs/', { bucket: 'team-outputs', prefix: '' }],
    ['S3://my.bucket-1/a', { bucket: 'my.bucket-1', prefix: 'a' }],
  ])('%s is a bucket and a prefix', (value, expected) => {
    expect(parseOutputsOption(value)).toEqual({ kind: 's3', ...expected });
  });

  it('takes a folder, a relative one resolved against the current folder', () => {
    expect(parseOutputsOption('/mnt/shared/outputs')).toEqual({
      kind: 'dir',
      path: '/mnt/shared/outputs',
    });
    expect(parseOutputsOption('shared/outputs', '/srv/gateway')).toEqual({
      kind: 'dir',
      path: '/srv/gateway/shared/outputs',
    });
    expect(parseOutputsOption('outputs')).toEqual({
      kind: 'dir',
      path: path.resolve('outputs'),
    });
  });

  it.each([
    ['', /the value is empty/],
    ['   ', /the value is empty/],
    ['s3://', /the bucket name is empty/],
    ['s3:///prefix', /the bucket name is empty/],
    ['s3://ab/x', /3 to 63 characters/],
    [`s3://${'a'.repeat(64)}`, /3 to 63 characters/],
    ['s3://Team-Outputs/x', /lowercase letters/],
    ['s3://team_outputs/x', /lowercase letters/],
    ['s3://-team/x', /start and end with a letter or digit/],
    ['s3://team./x', /start and end with a letter or digit/],
    ['s3://team..outputs/x', /two dots in a row/],
    ['s3://192.168.1.10/x', /IP address/],
    ['s3://team-outputs/a//b', /prefix "a\/\/b" has an empty/],
    ['s3://team-outputs/a/../b', /".."/],
    ['gs://team-outputs/x', /gs:\/\/ is not supported \(only s3:\/\/\)/],
  ])('refuses %j', (value, message) => {
    let thrown: unknown;
    try {
      parseOutputsOption(value);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(OutputsOptionError);
    const error = thrown as OutputsOptionError;
    expect(error.code).toBe('BAD_OUTPUTS_OPTION');
    expect(error.message).toMatch(message);
    expect(error.message).toMatch(/^--outputs /);
    expect(error.message).toMatch(/expected s3:\/\/BUCKET\/PREFIX or a directory$/);
  });
});
