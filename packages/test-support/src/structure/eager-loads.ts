/**
 * What loading a module loads with it: the files its static, value imports reach (type-only
 * imports are erased and `import()` waits until it runs). For the promise that `@toolmask/core`'s
 * entries load `@google/gemini-cli-core` (about 2 s, and only right in a gemini-cli host) only when
 * the installation is used: `geminiCliHost/` loads it with `import()`.
 */
import { importsOf } from './imports.js';
import { isRelative, resolveRelative, splitBareSpecifier } from './resolve.js';
import type { SourceTree } from './source-tree.js';

/** The entries that must not load gemini-cli-core: the main entry and the subpath entries. */
export function coreEntries(tree: SourceTree): string[] {
  return tree.files.filter(
    (file) =>
      file === 'packages/core/src/index.ts' ||
      /^packages\/core\/src\/entries\/[^/]+\.ts$/.test(file),
  );
}

/**
 * Each way `entry` loads the package `name` when it is loaded: the chain of files from the entry
 * to the one that imports it (empty when none does).
 */
export function eagerLoadChains(tree: SourceTree, entry: string, name: string): string[][] {
  const cameFrom = new Map<string, string | undefined>([[entry, undefined]]);
  const queue = [entry];
  const chains: string[][] = [];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    for (const record of importsOf(tree, file)) {
      if (record.typeOnly || record.dynamic) continue;
      if (!isRelative(record.specifier)) {
        if (splitBareSpecifier(record.specifier).name === name)
          chains.push(chainTo(cameFrom, file));
        continue;
      }
      const target = resolveRelative(tree, file, record.specifier);
      if (target.exists && !cameFrom.has(target.file)) {
        cameFrom.set(target.file, file);
        queue.push(target.file);
      }
    }
  }
  return chains;
}

function chainTo(cameFrom: Map<string, string | undefined>, file: string): string[] {
  const chain: string[] = [];
  for (let at: string | undefined = file; at !== undefined; at = cameFrom.get(at))
    chain.unshift(at);
  return chain;
}

/**
 * The bare specifiers (packages and their subpaths, `node:` modules included) that loading `entry`
 * loads with it, each with the chain of files that reaches it.
 */
export function eagerBareImports(tree: SourceTree, entry: string): Map<string, string[]> {
  const cameFrom = new Map<string, string | undefined>([[entry, undefined]]);
  const queue = [entry];
  const found = new Map<string, string[]>();
  while (queue.length > 0) {
    const file = queue.shift() as string;
    for (const record of importsOf(tree, file)) {
      if (record.typeOnly || record.dynamic) continue;
      if (!isRelative(record.specifier)) {
        if (!found.has(record.specifier)) found.set(record.specifier, chainTo(cameFrom, file));
        continue;
      }
      const target = resolveRelative(tree, file, record.specifier);
      if (target.exists && !cameFrom.has(target.file)) {
        cameFrom.set(target.file, file);
        queue.push(target.file);
      }
    }
  }
  return found;
}
