/**
 * The error-class check on trees held in memory: a class that extends `Error` (directly, through
 * a chain, or as a class expression) without `ToolmaskError` on the way fails; one that reaches
 * `ToolmaskError`, or a class that is no error, passes.
 */
import { describe, expect, it } from 'vitest';
import { checkErrorClasses } from './error-classes.js';
import { memoryTree } from './source-tree.js';

function messages(files: Record<string, string>): string[] {
  return checkErrorClasses(memoryTree(files)).map((violation) => violation.message);
}

describe('checkErrorClasses', () => {
  it('fails on an Error subclass that does not extend ToolmaskError', () => {
    expect(
      messages({
        'packages/core/src/utils/toolmaskError.ts': 'export class ToolmaskError extends Error {}\n',
        'packages/cli/src/input/a.ts': [
          "import { ToolmaskError } from '@toolmask/core/errors';",
          'export class GoodError extends ToolmaskError {}',
          'export class ChildOfGood extends GoodError {}',
          'export class BadError extends Error {}',
          'export class ChildOfBad extends BadError {}',
          'export const Expression = class extends TypeError {};',
          'export class Tool extends BaseDeclarativeTool {}',
          'export class Plain {}',
          '',
        ].join('\n'),
      }),
    ).toEqual([
      'packages/cli/src/input/a.ts: BadError extends Error: an error class extends ToolmaskError',
      'packages/cli/src/input/a.ts: ChildOfBad extends BadError extends Error: an error class extends ToolmaskError',
      'packages/cli/src/input/a.ts: Expression extends TypeError: an error class extends ToolmaskError',
    ]);
  });

  it('follows a chain across files and packages, by name', () => {
    expect(
      messages({
        'packages/cli/src/launch/launch-error.ts':
          "import * as core from '@toolmask/core/errors';\nexport class LaunchError extends core.ToolmaskError {}\n",
        'packages/cli/src/launch/refused.ts':
          "import { LaunchError } from './launch-error.js';\nexport class Refused extends LaunchError {}\n",
        'packages/gateway/src/state/stores.ts':
          'export class ConflictError extends RangeError {}\n',
      }),
    ).toEqual([
      'packages/gateway/src/state/stores.ts: ConflictError extends RangeError: an error class extends ToolmaskError',
    ]);
  });

  it('leaves tests and test helpers alone', () => {
    expect(
      messages({
        'packages/core/src/utils/a.test.ts': 'class Boom extends Error {}\n',
        'packages/gateway/src/test-utils/b.ts': 'export class Boom extends Error {}\n',
        'packages/test-support/src/c.ts': 'export class Boom extends Error {}\n',
      }),
    ).toEqual([]);
  });
});
