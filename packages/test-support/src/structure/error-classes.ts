/**
 * "Every error class extends `ToolmaskError`" (docs/architecture.md, Errors), checked on the
 * source: every class of the packages' code (tests and test helpers aside) that extends a
 * built-in error, directly or through other classes of the repository, must have
 * `ToolmaskError` in that chain. `ToolmaskError` itself is the one class that extends `Error`.
 *
 * Classes are found by name: `extends X` is the class `X` of the same file, else the class named
 * `X` anywhere in the checked files (an error class's name is unique in practice; where it is
 * not, the first found). A base class from another package (`extends BaseDeclarativeTool`) ends
 * the chain: it is no error of toolmask's.
 */
import ts from 'typescript';
import { isTestCode, packageOf } from './file-roles.js';
import { parseFile } from './imports.js';
import type { SourceTree } from './source-tree.js';
import type { Violation } from './violations.js';

export const BASE_ERROR_CLASS = 'ToolmaskError';
const BUILT_IN_ERRORS = new Set([
  'Error',
  'AggregateError',
  'EvalError',
  'RangeError',
  'ReferenceError',
  'SyntaxError',
  'TypeError',
  'URIError',
]);

interface ClassEntry {
  name: string;
  file: string;
  /** The `extends` clause's expression as written (`Error`, `core.ToolmaskError`). */
  base: string | undefined;
}

/** The files whose classes are checked: the packages' `src/` code, tests aside. */
export function errorClassFiles(tree: SourceTree): string[] {
  return tree.files.filter(
    (file) =>
      packageOf(file)?.inSource !== undefined &&
      /\.[cm]?ts$/.test(file) &&
      !file.endsWith('.d.ts') &&
      !isTestCode(file),
  );
}

export function checkErrorClasses(tree: SourceTree): Violation[] {
  const classes = errorClassFiles(tree).flatMap((file) => classesOf(parseFile(tree, file), file));
  const byName = new Map<string, ClassEntry[]>();
  for (const entry of classes) byName.set(entry.name, [...(byName.get(entry.name) ?? []), entry]);

  const violations: Violation[] = [];
  for (const entry of classes) {
    if (entry.name === BASE_ERROR_CLASS) continue;
    const chain = errorChain(entry, byName);
    if (chain && !chain.includes(BASE_ERROR_CLASS)) {
      violations.push({
        rule: 'error-class',
        key: `error-class: ${entry.file} ${entry.name}`,
        message: `${entry.file}: ${chain.join(' extends ')}: an error class extends ${BASE_ERROR_CLASS}`,
      });
    }
  }
  return violations;
}

/**
 * The names from `entry` up to a built-in error (`['A', 'B', 'Error']`), or undefined when the
 * chain ends elsewhere (not an error class).
 */
function errorChain(entry: ClassEntry, byName: Map<string, ClassEntry[]>): string[] | undefined {
  const chain = [entry.name];
  let current: ClassEntry | undefined = entry;
  const seen = new Set<ClassEntry>();
  while (current?.base !== undefined && !seen.has(current)) {
    seen.add(current);
    const baseName: string = current.base.split('.').at(-1) as string;
    chain.push(baseName);
    if (baseName === BASE_ERROR_CLASS || BUILT_IN_ERRORS.has(baseName)) return chain;
    const candidates: ClassEntry[] = byName.get(baseName) ?? [];
    const from: string = current.file;
    current = candidates.find((candidate) => candidate.file === from) ?? candidates[0];
  }
  return undefined;
}

function classesOf(source: ts.SourceFile, file: string): ClassEntry[] {
  const found: ClassEntry[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
      const heritage = node.heritageClauses?.find(
        (clause) => clause.token === ts.SyntaxKind.ExtendsKeyword,
      );
      const base = heritage?.types[0]?.expression.getText(source);
      found.push({ name: className(node, source), file, base });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A class's name, or its variable's (`const X = class extends Error {}`), or `<anonymous>`. */
function className(node: ts.ClassLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent)) return parent.name.getText(source);
  return '<anonymous>';
}
