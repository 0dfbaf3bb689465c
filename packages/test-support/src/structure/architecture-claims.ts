/**
 * The claims of docs/architecture.md held against the tree, each as a list of mismatches (empty
 * when the doc is true): the layer drawings against `LAYERS` and the files they name, the public
 * surface's counts against the lists each `publicApi.test.ts` pins, the protocol folders, and
 * the CLI's launch clients (one folder per client, the same files in each).
 */
import ts from 'typescript';
import { layerDrawings, protocolFolders, statedSurfaceCounts } from './architecture-doc.js';
import { parseFile } from './imports.js';
import { LAYERS, TEST_ONLY_LAYERS } from './layers.js';
import type { SourceTree } from './source-tree.js';

export const ARCHITECTURE_DOC = 'docs/architecture.md';
export const PROTOCOLS_FOLDER = 'packages/gateway/src/protocols/';
export const LAUNCH_CLIENTS_FOLDER = 'packages/cli/src/launch/clients/';

/** Each drawing's layers equal its package's table (test-only layers aside), in order. */
export function layerOrderMismatches(
  tree: SourceTree,
  tables: Readonly<Record<string, readonly string[]>> = LAYERS,
): string[] {
  const drawings = layerDrawings(tree.read(ARCHITECTURE_DOC));
  const mismatches: string[] = [];
  // test-support is one layer of helpers: nothing to draw.
  for (const name of Object.keys(tables).filter((name) => name !== 'test-support')) {
    const drawing = drawings.find((candidate) => candidate.packageName === name);
    const table = (tables[name] ?? []).filter((layer) => !TEST_ONLY_LAYERS.has(layer));
    if (!drawing) {
      mismatches.push(`${ARCHITECTURE_DOC} draws no layers for ${name}/src/`);
    } else if (drawing.layers.join(' ') !== table.join(' ')) {
      mismatches.push(
        `${name}: the doc draws ${drawing.layers.join(' > ')}; LAYERS has ${table.join(' > ')}`,
      );
    }
  }
  return mismatches;
}

/** Every file a drawing names under a layer is in that layer (a folder's files, at any depth). */
export function namedFileMismatches(tree: SourceTree): string[] {
  const mismatches: string[] = [];
  for (const drawing of layerDrawings(tree.read(ARCHITECTURE_DOC))) {
    const source = `packages/${drawing.packageName}/src/`;
    for (const [layer, names] of drawing.filesNamed) {
      const folder = layer.endsWith('/') ? `${source}${layer}` : source;
      for (const name of names) {
        const found = tree.files.some(
          (file) =>
            file.startsWith(folder) &&
            file.endsWith(`/${name}`) &&
            (layer.endsWith('/') || !file.slice(folder.length).includes('/')),
        );
        if (!found) mismatches.push(`${layer} names ${name}, not found in ${folder}`);
      }
    }
  }
  return mismatches;
}

/** Non-test `.ts` files directly in each folder under `parent`, by folder name. */
export function filesOfSubfolders(tree: SourceTree, parent: string): Map<string, string[]> {
  const folders = new Map<string, string[]>();
  for (const file of tree.files) {
    if (!file.startsWith(parent)) continue;
    const [folder, name, ...deeper] = file.slice(parent.length).split('/');
    if (name === undefined || deeper.length > 0) continue;
    const files = folders.get(folder as string) ?? [];
    if (name.endsWith('.ts') && !name.endsWith('.test.ts')) files.push(name);
    folders.set(folder as string, files);
  }
  return folders;
}

/** The protocol folders are those the doc names, each with the files the doc says it has. */
export function protocolMismatches(tree: SourceTree): string[] {
  const claimed = protocolFolders(tree.read(ARCHITECTURE_DOC));
  const actual = filesOfSubfolders(tree, PROTOCOLS_FOLDER);
  const mismatches: string[] = [];
  if ([...actual.keys()].sort().join(' ') !== [...claimed.folders].sort().join(' ')) {
    mismatches.push(
      `protocol folders: the doc names ${claimed.folders.join(', ')}; ` +
        `${PROTOCOLS_FOLDER} has ${[...actual.keys()].join(', ')}`,
    );
  }
  for (const [folder, files] of actual) {
    const expected = new Set([...claimed.sharedFiles, ...(claimed.filesNamed.get(folder) ?? [])]);
    for (const name of expected) {
      if (!files.includes(name)) mismatches.push(`${PROTOCOLS_FOLDER}${folder}/ has no ${name}`);
    }
  }
  return mismatches;
}

/** Every folder under launch/clients/ has the same file names (none while it does not exist). */
export function launchClientMismatches(tree: SourceTree): string[] {
  const folders = filesOfSubfolders(tree, LAUNCH_CLIENTS_FOLDER);
  const everyName = new Set([...folders.values()].flat());
  const mismatches: string[] = [];
  for (const [folder, files] of folders) {
    const missing = [...everyName].filter((name) => !files.includes(name)).sort();
    if (missing.length > 0) {
      mismatches.push(
        `${LAUNCH_CLIENTS_FOLDER}${folder}/ has no ${missing.join(', ')} (another client has)`,
      );
    }
  }
  return mismatches;
}

/** The counts the doc states for each package equal the lists its publicApi.test.ts pins. */
export function surfaceCountMismatches(tree: SourceTree): string[] {
  const mismatches: string[] = [];
  for (const [packageName, stated] of statedSurfaceCounts(tree.read(ARCHITECTURE_DOC))) {
    const test = `packages/${packageName.replace('@toolmask/', '')}/src/publicApi.test.ts`;
    const pinned = {
      values: pinnedList(tree, test, 'PUBLIC_RUNTIME_NAMES'),
      types: pinnedList(tree, test, 'PUBLIC_TYPE_NAMES'),
    };
    for (const kind of ['values', 'types'] as const) {
      if (pinned[kind].length !== stated[kind]) {
        mismatches.push(
          `${packageName}: the doc says ${stated[kind]} ${kind}, ${test} pins ${pinned[kind].length}`,
        );
      }
    }
  }
  return mismatches;
}

/** The string literals of the array `const <name> = [...]` in `file`. */
export function pinnedList(tree: SourceTree, file: string, name: string): string[] {
  if (!tree.has(file)) throw new Error(`${file}: not found`);
  let list: string[] | undefined;
  const visit = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      node.name.getText() === name &&
      node.initializer &&
      ts.isArrayLiteralExpression(node.initializer)
    ) {
      list = node.initializer.elements.filter(ts.isStringLiteral).map((element) => element.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(parseFile(tree, file));
  if (!list) throw new Error(`${file}: no array ${name}`);
  return list;
}

/**
 * The request path knows no deployment by name (docs/architecture.md, "Who a request belongs to"):
 * every line of the gateway's pipeline, access rules and route table that says "team".
 */
export function deploymentNamedInRequestPath(tree: SourceTree): string[] {
  const shared = (file: string) =>
    (file.startsWith('packages/gateway/src/pipeline/') && !file.endsWith('.test.ts')) ||
    file === 'packages/gateway/src/server/access.ts' ||
    file === 'packages/gateway/src/server/route-table.ts';
  return tree.files.filter(shared).flatMap((file) =>
    tree
      .read(file)
      .split('\n')
      .flatMap((line, index) =>
        /team/i.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [],
      ),
  );
}
