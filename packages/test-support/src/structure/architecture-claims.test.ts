/**
 * docs/architecture.md's structural claims, held against the tree (`architecture-claims.ts`,
 * `error-classes.ts`). The public surface's counts are compared with the lists each package's
 * publicApi.test.ts pins; that test holds the lists equal to the entry's exports, read with the
 * TypeScript compiler API.
 */
import { describe, expect, it } from 'vitest';
import {
  deploymentNamedInRequestPath,
  launchClientMismatches,
  layerOrderMismatches,
  namedFileMismatches,
  protocolMismatches,
  surfaceCountMismatches,
} from './architecture-claims.js';
import { checkErrorClasses } from './error-classes.js';
import { repositoryRoot, repositoryTree } from './source-tree.js';
import { messagesOf } from './violations.js';

const tree = repositoryTree(repositoryRoot());

describe('docs/architecture.md', () => {
  it('every error class of the packages extends ToolmaskError (directly or through a chain)', () => {
    expect(messagesOf(checkErrorClasses(tree), ['error-class'])).toEqual([]);
  });

  it("draws each package's layers in the order of the import-graph test's table", () => {
    expect(layerOrderMismatches(tree)).toEqual([]);
  });

  it('names, under each layer, files that are in it', () => {
    expect(namedFileMismatches(tree)).toEqual([]);
  });

  it('states the counts of public values and types that publicApi.test.ts pins', () => {
    expect(surfaceCountMismatches(tree)).toEqual([]);
  });

  it('names every protocol folder, and each has codec.ts usage.ts errors.ts routes.ts index.ts', () => {
    expect(protocolMismatches(tree)).toEqual([]);
  });

  it('every folder under cli/src/launch/clients/ has the same file names', () => {
    expect(launchClientMismatches(tree)).toEqual([]);
  });

  it("the gateway's pipeline, access rules and route table name no deployment (no team branch)", () => {
    expect(deploymentNamedInRequestPath(tree)).toEqual([]);
  });
});
