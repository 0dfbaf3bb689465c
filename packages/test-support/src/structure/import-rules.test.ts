/**
 * The import checks on small trees held in memory: each rule fails on an import that breaks it,
 * naming the file, the line and the import, and stays quiet on the imports it allows.
 */
import { describe, expect, it } from 'vitest';
import { checkCycles } from './cycles.js';
import { eagerLoadChains } from './eager-loads.js';
import { checkImports } from './import-rules.js';
import { memoryTree } from './source-tree.js';

const CORE_MANIFEST = JSON.stringify({
  name: '@toolmask/core',
  exports: { '.': { import: './dist/index.js' }, './storage': { import: './dist/storage.js' } },
});

function messages(files: Record<string, string>): string[] {
  return checkImports(memoryTree(files)).map((violation) => violation.message);
}

describe('checkImports', () => {
  it('fails on an import that runs up a layer, and allows one down or within a layer', () => {
    expect(
      messages({
        'packages/gateway/src/usage/usage-tap.ts':
          "import { a } from './usage-record.js';\nimport '../pipeline/handle-model-request.js';\n",
        'packages/gateway/src/usage/usage-record.ts': "import type { B } from '../body/b.js';\n",
        'packages/gateway/src/pipeline/handle-model-request.ts': '',
        'packages/gateway/src/body/b.ts': '',
      }),
    ).toEqual([
      "packages/gateway/src/usage/usage-tap.ts:2 imports '../pipeline/handle-model-request.js': " +
        'usage/ may not import pipeline/ (a layer above it)',
    ]);
  });

  it('counts type-only imports and imports of missing files', () => {
    expect(
      messages({ 'packages/core/src/utils/a.ts': "import type { X } from '../services/x.js';\n" }),
    ).toEqual([
      "packages/core/src/utils/a.ts:1 imports '../services/x.js': " +
        'utils/ may not import services/ (a layer above it)',
    ]);
  });

  it('lets tests import any layer, and no source import a test helper', () => {
    expect(
      messages({
        'packages/core/src/utils/a.test.ts': "import '../test-utils/harness.js';\n",
        'packages/core/src/test-utils/harness.ts': "import '../services/s.js';\n",
        'packages/core/src/services/s.ts': "import '../test-utils/harness.js';\n",
      }),
    ).toEqual([
      "packages/core/src/services/s.ts:1 imports '../test-utils/harness.js': " +
        'services/ may not import test-utils/ (a layer above it)',
    ]);
  });

  it('fails on a source file in no layer', () => {
    expect(messages({ 'packages/core/src/stray.ts': '' })).toEqual([
      'packages/core/src/stray.ts is in no layer of its package (add it to LAYERS in structure/layers.ts)',
    ]);
  });

  it('fails on @toolmask/test-support imported by a non-test file', () => {
    expect(
      messages({
        'packages/test-support/package.json': JSON.stringify({ exports: { './*': './src/*.ts' } }),
        'packages/cli/src/input/recorder.ts':
          "import { startFakeUpstream } from '@toolmask/test-support/fake-upstream';\n",
        'packages/cli/src/input/recorder.test.ts':
          "import '@toolmask/test-support/fake-upstream';\n",
        'packages/cli/src/test-data/run-cli.ts': "import '@toolmask/test-support/cleanups';\n",
        'packages/gateway/src/test-utils/client.ts': "import '@toolmask/test-support/traces';\n",
      }),
    ).toEqual([
      "packages/cli/src/input/recorder.ts:1 imports '@toolmask/test-support/fake-upstream': " +
        'only tests and test helpers use the test helpers',
    ]);
  });

  it("fails on the bench reaching into a package's dist or src, or past its exports", () => {
    expect(
      messages({
        'packages/core/package.json': CORE_MANIFEST,
        'bench/a.mjs': [
          "import { x } from '../packages/core/dist/services/toolOutputPreview.js';",
          "import { y } from '../packages/core/src/index.ts';",
          "import { z } from '@toolmask/core/storage';",
          "const { w } = await import('@toolmask/core/dist/utils/x.js');",
          "import { v } from './b.mjs';",
          '',
        ].join('\n'),
        'bench/b.mjs': "import '@toolmask/core';\n",
      }),
    ).toEqual([
      "bench/a.mjs:1 imports '../packages/core/dist/services/toolOutputPreview.js': " +
        'a path into packages/core: import @toolmask/core instead',
      "bench/a.mjs:2 imports '../packages/core/src/index.ts': " +
        'a path into packages/core: import @toolmask/core instead',
      "bench/a.mjs:4 imports '@toolmask/core/dist/utils/x.js': " +
        "./dist/utils/x.js is not in packages/core/package.json's exports",
    ]);
  });

  it('reads pattern exports (`./*`) as the subpaths they match', () => {
    expect(
      messages({
        'packages/test-support/package.json': JSON.stringify({ exports: { './*': './src/*.ts' } }),
        'packages/test-support/src/a.ts': '',
        'packages/gateway/src/x.test.ts': "import '@toolmask/test-support/a';\n",
      }),
    ).toEqual([]);
  });

  it("fails on one package's source reaching another package's files by a path", () => {
    expect(
      messages({
        'packages/gateway/src/usage/a.ts': "import { b } from '../../../core/src/utils/b.js';\n",
        'packages/gateway/src/usage/a.test.ts': "import '../../../cli/src/lib.js';\n",
        'packages/core/src/utils/b.ts': '',
      }),
    ).toEqual([
      "packages/gateway/src/usage/a.test.ts:1 imports '../../../cli/src/lib.js': " +
        'a path out of packages/gateway (packages/cli/src/lib.ts)',
      "packages/gateway/src/usage/a.ts:1 imports '../../../core/src/utils/b.js': " +
        'a path out of packages/gateway (packages/core/src/utils/b.ts)',
    ]);
  });

  it('allows @google/gemini-cli-core in geminiCliHost/, tests, the allow-list (types) and import()', () => {
    const found = messages({
      'packages/core/src/geminiCliHost/a.ts':
        "import { GeminiClient } from '@google/gemini-cli-core';\n",
      'packages/core/src/services/a.test.ts': "import { Config } from '@google/gemini-cli-core';\n",
      'packages/core/src/services/maskingTypes.ts':
        "import type { Content } from '@google/gemini-cli-core';\n",
      'packages/core/src/services/previews/toolCall.ts':
        "import { type Content, partToString } from '@google/gemini-cli-core';\n",
      'packages/core/src/storage/lazy.ts':
        "const core = await import('@google/gemini-cli-core');\n",
      'packages/gateway/src/usage/a.ts':
        "import type { Part } from '@google/gemini-cli-core/dist/src/index.js';\n",
    });
    expect(found).toEqual([
      "packages/core/src/services/previews/toolCall.ts:1 imports '@google/gemini-cli-core': " +
        '@google/gemini-cli-core is imported under core/src/geminiCliHost/ and by tests only ' +
        '(else an entry of GEMINI_CLI_CORE_IMPORTERS in structure/layers.ts)',
      "packages/gateway/src/usage/a.ts:1 imports '@google/gemini-cli-core/dist/src/index.js': " +
        '@google/gemini-cli-core is imported under core/src/geminiCliHost/ and by tests only ' +
        '(else an entry of GEMINI_CLI_CORE_IMPORTERS in structure/layers.ts)',
    ]);
  });
});

describe('checkCycles', () => {
  it('reports a cycle of files once, with its path, type-only imports included', () => {
    const found = checkCycles(
      memoryTree({
        'packages/core/src/services/a.ts': "import { b } from './b.js';\n",
        'packages/core/src/services/b.ts': "import type { C } from './c.js';\n",
        'packages/core/src/services/c.ts': "export type { A } from './a.js';\n",
        'packages/core/src/services/d.ts': "import { a } from './a.js';\n",
        'bench/self.mjs': "import './self.mjs';\n",
      }),
    );
    expect(found.map((violation) => violation.message)).toEqual([
      'import cycle of 1 file(s): bench/self.mjs -> bench/self.mjs',
      'import cycle of 3 file(s): packages/core/src/services/a.ts -> ' +
        'packages/core/src/services/b.ts -> packages/core/src/services/c.ts -> ' +
        'packages/core/src/services/a.ts',
    ]);
  });

  it('finds no cycle in a tree without one', () => {
    const tree = memoryTree({
      'packages/core/src/a.ts': "import './b.js';\nimport './c.js';\n",
      'packages/core/src/b.ts': "import './c.js';\n",
      'packages/core/src/c.ts': '',
    });
    expect(checkCycles(tree)).toEqual([]);
  });
});

describe('eagerLoadChains', () => {
  it('follows static value imports to a package, not type-only ones or import()', () => {
    const tree = memoryTree({
      'packages/core/src/index.ts':
        "export { a } from './a.js';\nimport type { T } from './t.js';\n",
      'packages/core/src/a.ts':
        "import { b } from './b.js';\nconst lazy = () => import('./c.js');\n",
      'packages/core/src/b.ts': "import { GeminiClient } from '@google/gemini-cli-core';\n",
      'packages/core/src/c.ts': "import { Config } from '@google/gemini-cli-core';\n",
      'packages/core/src/t.ts': "import { Part } from '@google/gemini-cli-core';\n",
    });
    expect(eagerLoadChains(tree, 'packages/core/src/index.ts', '@google/gemini-cli-core')).toEqual([
      ['packages/core/src/index.ts', 'packages/core/src/a.ts', 'packages/core/src/b.ts'],
    ]);
  });
});
