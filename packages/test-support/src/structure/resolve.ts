/**
 * Where an import leads, by path alone: a relative specifier to the file of the tree it names
 * (TypeScript's `./x.js` is `./x.ts`), a bare one to its package name and subpath. No
 * `node_modules` is read: the checks care about the repository's own files and packages.
 */
import * as path from 'node:path';
import type { SourceTree } from './source-tree.js';

export interface RelativeTarget {
  /** The file the import names, relative to the tree's root. */
  file: string;
  /** Whether that file is in the tree (an import of a missing file still has a place). */
  exists: boolean;
}

export function isRelative(specifier: string): boolean {
  return specifier.startsWith('./') || specifier.startsWith('../');
}

/** The file `specifier` (relative) of `from` names. */
export function resolveRelative(tree: SourceTree, from: string, specifier: string): RelativeTarget {
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  const candidates = [joined];
  if (/\.js$/.test(joined)) candidates.push(joined.replace(/\.js$/, '.ts'));
  if (/\.mjs$/.test(joined)) candidates.push(joined.replace(/\.mjs$/, '.mts'));
  if (!/\.[cm]?[jt]s$/.test(joined)) {
    candidates.push(`${joined}.ts`, `${joined}/index.ts`, `${joined}.mjs`, `${joined}.js`);
  }
  const found = candidates.find((candidate) => tree.has(candidate));
  if (found) return { file: found, exists: true };
  // A TypeScript file names its siblings `.js`: the place is the `.ts` file, missing or not.
  const typescriptSource = /\.[cm]?ts$/.test(from) && /\.js$/.test(joined);
  return { file: typescriptSource ? joined.replace(/\.js$/, '.ts') : joined, exists: false };
}

/** `@scope/name/sub/path` as `{ name: '@scope/name', subpath: './sub/path' }` (`.` for none). */
export function splitBareSpecifier(specifier: string): { name: string; subpath: string } {
  const parts = specifier.split('/');
  const length = specifier.startsWith('@') ? 2 : 1;
  const rest = parts.slice(length).join('/');
  return { name: parts.slice(0, length).join('/'), subpath: rest === '' ? '.' : `./${rest}` };
}

/**
 * Whether a package.json `exports` object lists `subpath` (`.`, `./storage`): a key equal to it,
 * or a pattern key with one `*` that matches it (`./*`).
 */
export function exportsList(exportsField: unknown, subpath: string): boolean {
  if (typeof exportsField === 'string') return subpath === '.';
  if (exportsField === null || typeof exportsField !== 'object') return false;
  const keys = Object.keys(exportsField);
  // Conditions only (`{ import, types }`): the package exports its main entry alone.
  if (keys.every((key) => !key.startsWith('.'))) return subpath === '.';
  return keys.some((key) => {
    if (key === subpath) return true;
    const star = key.indexOf('*');
    if (star < 0) return false;
    const [prefix, suffix] = [key.slice(0, star), key.slice(star + 1)];
    return (
      subpath.length > prefix.length + suffix.length &&
      subpath.startsWith(prefix) &&
      subpath.endsWith(suffix)
    );
  });
}
