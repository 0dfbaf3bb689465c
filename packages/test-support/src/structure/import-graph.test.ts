/**
 * The repository's imports keep the rules of `import-rules.ts` (layers, test helpers, exports,
 * packages, gemini-cli-core) and form no cycle of files. Reads the source as text; builds
 * nothing. A failure names the file, the line and the import.
 */
import { describe, expect, it } from 'vitest';
import { checkCycles } from './cycles.js';
import { coreEntries, eagerBareImports, eagerLoadChains } from './eager-loads.js';
import { checkImports, unusedGeminiCliCoreEntries } from './import-rules.js';
import { repositoryRoot, repositoryTree } from './source-tree.js';
import { messagesOf } from './violations.js';

const tree = repositoryTree(repositoryRoot());

describe("the repository's import graph", () => {
  it('has no import that runs up a layer, reaches past exports or into another package', () => {
    const rules = ['layer', 'unlisted', 'test-support', 'past-exports', 'cross-package'];
    expect(messagesOf(checkImports(tree), rules)).toEqual([]);
  });

  it('imports @google/gemini-cli-core statically only in geminiCliHost/, tests and the allow-list', () => {
    expect(messagesOf(checkImports(tree), ['gemini-cli-core'])).toEqual([]);
    // The allow-list stays as small as the tree needs.
    expect(unusedGeminiCliCoreEntries(tree)).toEqual([]);
  });

  it("loads @google/gemini-cli-core with none of core's entries (only geminiCliHost/'s import())", () => {
    const entries = coreEntries(tree);
    expect(entries).toContain('packages/core/src/index.ts');
    const chains = entries.flatMap((entry) =>
      eagerLoadChains(tree, entry, '@google/gemini-cli-core').map((chain) => chain.join(' -> ')),
    );
    expect(chains).toEqual([]);
  });

  it("starts `toolmask` with the commands' declarations only: each command's run loads when it runs", () => {
    // What program.ts loads with it (issue 30: --help costs no more than the program's definition).
    const allowed = [
      'commander',
      '@toolmask/core/errors',
      '@toolmask/core/setting-declarations',
      '@toolmask/gateway/defaults',
    ];
    const loaded = [...eagerBareImports(tree, 'packages/cli/src/program.ts')]
      .filter(([specifier]) => !specifier.startsWith('node:') && !allowed.includes(specifier))
      .map(([specifier, chain]) => `${specifier} (${chain.join(' -> ')})`);
    expect(loaded).toEqual([]);
  });

  it('answers `toolmask --version` loading no package (index.ts before the program)', () => {
    const loaded = [...eagerBareImports(tree, 'packages/cli/src/index.ts')]
      .filter(([specifier]) => !specifier.startsWith('node:'))
      .map(([specifier, chain]) => `${specifier} (${chain.join(' -> ')})`);
    expect(loaded).toEqual([]);
  });

  it("starts a launcher's client before loading the gateway or core's store", () => {
    const launchFiles = tree.files.filter(
      (file) =>
        /^packages\/cli\/src\/launch\/(run\/launch-client|clients\/[a-z]+\/(launch|setup))\.ts$/.test(
          file,
        ) || file === 'packages/cli/src/commands/launch/launch-command.ts',
    );
    expect(launchFiles.length).toBeGreaterThan(5);
    const heavy = ['@toolmask/gateway', '@toolmask/core', '@toolmask/core/storage'];
    const loaded = launchFiles.flatMap((file) =>
      [...eagerBareImports(tree, file)]
        .filter(([specifier]) => heavy.includes(specifier))
        .map(([specifier, chain]) => `${specifier} (${chain.join(' -> ')})`),
    );
    expect(loaded).toEqual([]);
  });

  it('has no cycle of files (type-only imports count)', () => {
    expect(messagesOf(checkCycles(tree), ['cycle'])).toEqual([]);
  });
});
