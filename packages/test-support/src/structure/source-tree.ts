/**
 * The files the structure checks read, as text: the repository's own tree (the packages, the
 * bench, the scripts, the examples and the docs), or a tree held in memory for the checks' own
 * tests. Paths are POSIX and relative to the tree's root (`packages/core/src/index.ts`).
 *
 * Guarantees: nothing is built or run; `node_modules`, `dist` and dot folders (`.cache`, `.tmp`)
 * are never listed, so the checks see the source and nothing generated from it. A file's text is
 * read when first asked for and kept.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SourceTree {
  /** Every file of the tree, sorted. */
  readonly files: readonly string[];
  has(file: string): boolean;
  read(file: string): string;
}

/** The top-level folders and files of the repository the checks read. */
const REPOSITORY_ROOTS = ['packages', 'bench', 'scripts', 'examples', 'docs'];
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist']);

/**
 * The repository at `root` (an absolute path), listed once per process: the structure tests that
 * run in one worker share it and the files it has parsed.
 */
export function repositoryTree(root: string): SourceTree {
  let tree = repositories.get(root);
  if (!tree) {
    tree = listRepository(root);
    repositories.set(root, tree);
  }
  return tree;
}

const repositories = new Map<string, SourceTree>();

function listRepository(root: string): SourceTree {
  const files: string[] = [];
  const walk = (folder: string): void => {
    let entries;
    try {
      entries = readdirSync(path.join(root, folder), { withFileTypes: true });
    } catch {
      return; // A root that does not exist (no `examples/` yet) has no files.
    }
    for (const entry of entries) {
      const relative = `${folder}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name) && !entry.name.startsWith('.')) walk(relative);
      } else if (entry.isFile()) {
        files.push(relative);
      }
    }
  };
  for (const top of REPOSITORY_ROOTS) walk(top);
  return cachedTree(files, (file) => readFileSync(path.join(root, file), 'utf8'));
}

/** A tree of the given files and texts, for the checks' own tests. */
export function memoryTree(texts: Readonly<Record<string, string>>): SourceTree {
  return cachedTree(Object.keys(texts), (file) => {
    const text = texts[file];
    if (text === undefined) throw new Error(`${file}: not in the tree`);
    return text;
  });
}

function cachedTree(files: string[], load: (file: string) => string): SourceTree {
  const sorted = [...files].sort();
  const present = new Set(sorted);
  const texts = new Map<string, string>();
  return {
    files: sorted,
    has: (file) => present.has(file),
    read: (file) => {
      let text = texts.get(file);
      if (text === undefined) {
        text = load(file);
        texts.set(file, text);
      }
      return text;
    },
  };
}

/** The repository's root, from a module inside `packages/test-support/src/structure/`. */
export function repositoryRoot(): string {
  return fileURLToPath(new URL('../../../../', import.meta.url)).replace(/\/$/, '');
}
