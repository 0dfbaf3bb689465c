/**
 * Every import of one file, read with the TypeScript compiler API (parsed, never type-checked):
 * `import` and `export ... from` (type-only ones included), `import x = require('...')`, the
 * type `import('...')`, and `import('...')` calls whose argument is a string literal. An
 * `import()` of a computed value is not seen: nothing can be said of it without running it.
 *
 * Files are parsed once per tree and kept (the checks read the same files several times).
 */
import ts from 'typescript';
import { isTestFile } from './file-roles.js';
import type { SourceTree } from './source-tree.js';

export interface ImportRecord {
  specifier: string;
  /** 1-based line of the import. */
  line: number;
  /** Erased from the built code: `import type`, every name `type`, or a type `import('...')`. */
  typeOnly: boolean;
  /** An `import('...')` call: loaded when the code runs that far, not with the module. */
  dynamic: boolean;
}

const parsed = new WeakMap<SourceTree, Map<string, ts.SourceFile>>();

/** `file` of `tree`, parsed (once per tree). */
export function parseFile(tree: SourceTree, file: string): ts.SourceFile {
  let files = parsed.get(tree);
  if (!files) {
    files = new Map();
    parsed.set(tree, files);
  }
  let source = files.get(file);
  if (!source) {
    const kind = /\.[cm]?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
    source = ts.createSourceFile(file, tree.read(file), ts.ScriptTarget.Latest, true, kind);
    files.set(file, source);
  }
  return source;
}

/**
 * Every import of `file`. Tests (`*.test.ts`) are scanned rather than parsed (five times faster,
 * and half the repository's code): what the checks need of a test is where its imports lead, so
 * their `typeOnly` is false.
 */
export function importsOf(tree: SourceTree, file: string): ImportRecord[] {
  if (!isTestFile(file)) return readImports(parseFile(tree, file));
  const text = tree.read(file);
  const lineOf = (position: number): number => text.slice(0, position).split('\n').length;
  return ts.preProcessFile(text, true, true).importedFiles.map(({ fileName, pos }) => ({
    specifier: fileName,
    line: lineOf(pos),
    typeOnly: false,
    dynamic: /\bimport\s*\(\s*$/.test(text.slice(Math.max(0, pos - 40), pos - 1)),
  }));
}

export function readImports(source: ts.SourceFile): ImportRecord[] {
  const imports: ImportRecord[] = [];
  const add = (literal: ts.Node, typeOnly: boolean, dynamic: boolean): void => {
    if (!ts.isStringLiteralLike(literal)) return;
    const line = source.getLineAndCharacterOfPosition(literal.getStart(source)).line + 1;
    imports.push({ specifier: literal.text, line, typeOnly, dynamic });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      add(node.moduleSpecifier, importIsTypeOnly(node), false);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      add(node.moduleSpecifier, exportIsTypeOnly(node), false);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference)
    ) {
      add(node.moduleReference.expression, node.isTypeOnly, false);
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      if (ts.isLiteralTypeNode(argument)) add(argument.literal, true, false);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0]
    ) {
      add(node.arguments[0], false, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return imports;
}

function importIsTypeOnly(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // `import './x.js'` runs the module.
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  if (clause.name || !bindings || !ts.isNamedImports(bindings)) return false;
  return bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
}

function exportIsTypeOnly(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  if (!clause || !ts.isNamedExports(clause)) return false;
  return clause.elements.length > 0 && clause.elements.every((element) => element.isTypeOnly);
}
