/**
 * The rules every import of the repository keeps (docs/architecture.md; the brief of issue 31):
 *
 * - `layer`: a package's source imports its own layer and the layers below it (`layers.ts`);
 *   `unlisted`: a source file, or the file it imports, sits in no layer of the table;
 * - `test-support`: only tests and test helpers import `@toolmask/test-support`;
 * - `past-exports`: the bench, the scripts and the examples reach a package through its
 *   `exports` only (no relative path into `packages/`), and nobody imports a
 *   `@toolmask/<name>/<subpath>` that the package's `exports` does not list;
 * - `cross-package`: a package never reaches another package's files by a relative path;
 * - `gemini-cli-core`: `@google/gemini-cli-core` is imported statically only under
 *   `core/src/geminiCliHost/`, by tests, and by the files `GEMINI_CLI_CORE_IMPORTERS` names.
 *
 * Other third-party imports are not checked. Cycles are `cycles.ts`'s.
 */
import { isCodeFile, isOutsideProgram, isTestCode, isTestFile, packageOf } from './file-roles.js';
import { importsOf, type ImportRecord } from './imports.js';
import { GEMINI_CLI_CORE_IMPORTERS, layerOf } from './layers.js';
import {
  exportsList,
  isRelative,
  resolveRelative,
  splitBareSpecifier,
  type RelativeTarget,
} from './resolve.js';
import type { SourceTree } from './source-tree.js';
import type { Violation } from './violations.js';

const GEMINI_CLI_CORE = '@google/gemini-cli-core';
const WORKSPACE_SCOPE = '@toolmask/';

/** Every import of `tree` that breaks one of the rules above, in file order. */
export function checkImports(tree: SourceTree): Violation[] {
  const violations: Violation[] = [];
  for (const file of tree.files.filter(isCodeFile)) {
    const layer = layerOf(file);
    if (!layer && needsLayer(file)) {
      violations.push({
        rule: 'unlisted',
        key: `unlisted: ${file}`,
        message: `${file} is in no layer of its package (add it to LAYERS in structure/layers.ts)`,
      });
    }
    for (const record of importsOf(tree, file)) {
      violations.push(...checkImport(tree, file, record));
    }
  }
  return violations;
}

/** Package source that the layer table must place: not tests, not outside `src/`. */
function needsLayer(file: string): boolean {
  return packageOf(file)?.inSource !== undefined && !isTestFile(file);
}

function checkImport(tree: SourceTree, file: string, record: ImportRecord): Violation[] {
  const found: Violation[] = [];
  const report = (rule: string, why: string): void => {
    found.push({
      rule,
      key: `${rule}: ${file} -> ${record.specifier}`,
      message: `${file}:${record.line} imports '${record.specifier}': ${why}`,
    });
  };
  if (isRelative(record.specifier)) {
    const target = resolveRelative(tree, file, record.specifier);
    checkRelative(file, target, report);
    return found;
  }
  const { name, subpath } = splitBareSpecifier(record.specifier);
  if (name === '@toolmask/test-support' && !isTestCode(file)) {
    report('test-support', 'only tests and test helpers use the test helpers');
  }
  if (name.startsWith(WORKSPACE_SCOPE) && subpath !== '.') {
    const manifest = `packages/${name.slice(WORKSPACE_SCOPE.length)}/package.json`;
    const exportsField = tree.has(manifest) ? readExports(tree, manifest) : undefined;
    if (!exportsList(exportsField, subpath)) {
      report('past-exports', `${subpath} is not in ${manifest}'s exports`);
    }
  }
  if (name === GEMINI_CLI_CORE && !record.dynamic && !mayImportGeminiCliCore(file, record)) {
    report(
      'gemini-cli-core',
      `${GEMINI_CLI_CORE} is imported under core/src/geminiCliHost/ and by tests only ` +
        '(else an entry of GEMINI_CLI_CORE_IMPORTERS in structure/layers.ts)',
    );
  }
  return found;
}

function checkRelative(
  file: string,
  target: RelativeTarget,
  report: (rule: string, why: string) => void,
): void {
  const from = packageOf(file);
  const to = packageOf(target.file);
  if (isOutsideProgram(file) && to) {
    report('past-exports', `a path into packages/${to.name}: import @toolmask/${to.name} instead`);
    return;
  }
  if (from && from.name !== to?.name) {
    report('cross-package', `a path out of packages/${from.name} (${target.file})`);
    return;
  }
  if (!from || isTestFile(file) || from.inSource === undefined) return;
  const source = layerOf(file);
  const imported = layerOf(target.file);
  if (!source) return; // Reported once for the file (`unlisted`).
  // A test fixture run as a plain `node` script loads its package's build (`../../dist/...`).
  if (to?.inSource === undefined && isTestCode(file)) return;
  if (!imported) {
    report('unlisted', `${target.file} is in no layer of packages/${from.name}`);
  } else if (imported.index < source.index) {
    report('layer', `${source.name} may not import ${imported.name} (a layer above it)`);
  }
}

function mayImportGeminiCliCore(file: string, record: ImportRecord): boolean {
  if (file.startsWith('packages/core/src/geminiCliHost/') || isTestCode(file)) return true;
  const allowed = GEMINI_CLI_CORE_IMPORTERS.find((entry) => entry.file === file);
  return allowed !== undefined && (record.typeOnly || !allowed.typeOnly);
}

function readExports(tree: SourceTree, manifest: string): unknown {
  return (JSON.parse(tree.read(manifest)) as { exports?: unknown }).exports;
}

/** Entries of `GEMINI_CLI_CORE_IMPORTERS` whose file no longer imports it statically. */
export function unusedGeminiCliCoreEntries(tree: SourceTree): string[] {
  return GEMINI_CLI_CORE_IMPORTERS.filter(
    ({ file }) =>
      !tree.has(file) ||
      !importsOf(tree, file).some(
        (record) =>
          !record.dynamic && splitBareSpecifier(record.specifier).name === GEMINI_CLI_CORE,
      ),
  ).map(({ file }) => `${file} (no longer imports ${GEMINI_CLI_CORE}: drop its entry)`);
}
