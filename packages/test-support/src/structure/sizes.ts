/**
 * Small files with one job: no file of the packages' code over `MAX_FILE_LINES` lines, no
 * function over `MAX_FUNCTION_LINES` (the rule of /work/wt/fnlen.mjs). Files: every TypeScript
 * file under `packages/<name>/src/` (test helpers and test-support included) and under
 * `packages/gateway/web/`, except tests (`*.test.ts`). Functions: declarations, methods, arrow
 * functions, function expressions, constructors and accessors, counted from the line of their
 * first token (after any comment) to the line of their last, both included.
 */
import ts from 'typescript';
import { isTestFile } from './file-roles.js';
import { parseFile } from './imports.js';
import type { SourceTree } from './source-tree.js';
import type { Violation } from './violations.js';

export const MAX_FILE_LINES = 320;
export const MAX_FUNCTION_LINES = 80;

/** The files the size rule covers. */
export function sizedFiles(tree: SourceTree): string[] {
  return tree.files.filter(
    (file) =>
      /^packages\/[^/]+\/(src|web)\/.*\.ts$/.test(file) &&
      !file.endsWith('.d.ts') &&
      !isTestFile(file),
  );
}

/** Lines of a text: a final newline ends the last line, it does not start another. */
export function lineCount(text: string): number {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

export function checkSizes(tree: SourceTree): Violation[] {
  const violations: Violation[] = [];
  for (const file of sizedFiles(tree)) {
    const lines = lineCount(tree.read(file));
    if (lines > MAX_FILE_LINES) {
      violations.push({
        rule: 'file-size',
        key: `file-size: ${file}`,
        message: `${file} has ${lines} lines (at most ${MAX_FILE_LINES})`,
      });
    }
    for (const { name, line, length } of longFunctions(parseFile(tree, file))) {
      violations.push({
        rule: 'function-size',
        key: `function-size: ${file} ${name}`,
        message: `${file}:${line} ${name} has ${length} lines (at most ${MAX_FUNCTION_LINES})`,
      });
    }
  }
  return violations;
}

/** Every function of `source` longer than the limit, with its name and first line. */
export function longFunctions(
  source: ts.SourceFile,
): Array<{ name: string; line: number; length: number }> {
  const found: Array<{ name: string; line: number; length: number }> = [];
  const visit = (node: ts.Node): void => {
    if (isFunctionLike(node)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const length = last - first + 1;
      if (length > MAX_FUNCTION_LINES) {
        found.push({ name: functionName(node, source), line: first + 1, length });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function isFunctionLike(node: ts.Node): boolean {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** The name a person finds the function by: its own, its variable's or property's, else where. */
function functionName(node: ts.Node, source: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) {
    const owner = node.parent.name?.getText(source) ?? 'class';
    return `${owner} constructor`;
  }
  const own = (node as ts.Node & { name?: ts.Node }).name;
  if (own) return own.getText(source);
  const parent = node.parent;
  if (
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) &&
    parent.name !== undefined
  ) {
    return parent.name.getText(source);
  }
  if (ts.isPropertyDeclaration(parent)) return parent.name.getText(source);
  return '<anonymous>';
}
