/**
 * The public surface of a package entry as TypeScript sees it: the names it exports at runtime
 * (functions, classes, constants) and the names it exports as types only (interfaces, type
 * aliases, `export type { ... }`). For the public-API tests of every package (core, the CLI, the
 * gateway): they pin both lists, so adding or dropping a name is a visible decision.
 *
 * One TypeScript program per call (it parses what the entry reaches in the workspace, about a
 * second): call it once per test file. Entries importing another workspace package read that
 * package's built declarations (`dist`), as its users do; third-party packages are not read.
 */
import ts from 'typescript';

export interface PublicSurface {
  /** Names the entry exports at runtime, sorted (a class is a value). */
  values: string[];
  /** Names the entry exports only as types, sorted. */
  types: string[];
}

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  skipLibCheck: true,
  noEmit: true,
  // No ambient @types packages, no DOM: only what the entry imports is parsed.
  types: [],
  lib: ['lib.es2023.d.ts'],
};

/** The surface of the entry file `entryFile` (an absolute path to a `.ts` file). */
export function readPublicSurface(entryFile: string): PublicSurface {
  const program = ts.createProgram([entryFile], OPTIONS, workspaceHost());
  const source = program.getSourceFile(entryFile);
  if (!source) throw new Error(`${entryFile}: not found`);
  const star = source.statements.find(
    (statement) => ts.isExportDeclaration(statement) && statement.exportClause === undefined,
  );
  if (star) {
    // Names behind `export *` are neither chosen nor visible here (nor is `export type *`'s
    // type-only mark through the public API): a curated entry names each export.
    throw new Error(`${entryFile}: \`${star.getText(source)}\`: name each export instead`);
  }
  // An export that does not resolve (a moved file) would be misread as a type: the entry must
  // compile.
  const errors = [
    ...program.getSyntacticDiagnostics(source),
    ...program.getSemanticDiagnostics(source),
  ];
  if (errors.length > 0) {
    const messages = errors.map((error) =>
      ts.flattenDiagnosticMessageText(error.messageText, '\n'),
    );
    throw new Error(`${entryFile} does not compile:\n${messages.join('\n')}`);
  }
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`${entryFile}: not a module`);

  const values: string[] = [];
  const types: string[] = [];
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    (isValueExport(checker, exported) ? values : types).push(exported.name);
  }
  return { values: values.sort(), types: types.sort() };
}

/** A runtime export: it names a value, and no re-export on the way to it is type-only. */
function isValueExport(checker: ts.TypeChecker, exported: ts.Symbol): boolean {
  let symbol: ts.Symbol | undefined = exported;
  const seen = new Set<ts.Symbol>();
  while (symbol && symbol.flags & ts.SymbolFlags.Alias && !seen.has(symbol)) {
    seen.add(symbol);
    if (symbol.declarations?.some((node) => ts.isTypeOnlyImportOrExportDeclaration(node))) {
      return false;
    }
    symbol = checker.getImmediateAliasedSymbol(symbol);
  }
  if (symbol && !symbol.declarations?.length) {
    // A value re-exported from a package outside the workspace (unresolved here, see
    // workspaceHost): neither a value nor a type can be told; the entry should not do that.
    throw new Error(`${exported.name}: re-exported from outside the workspace`);
  }
  return symbol !== undefined && (symbol.flags & ts.SymbolFlags.Value) !== 0;
}

/**
 * A compiler host that resolves the workspace's own modules only: relative paths and
 * `@toolmask/*` (to their built declarations). Third-party modules (gemini-cli-core, the MCP and
 * AWS SDKs, OpenTelemetry, Node's own) stay unresolved: what an entry exports is decided by the
 * workspace's declarations, and parsing those packages' declarations cost seconds per entry.
 */
function workspaceHost(): ts.CompilerHost {
  const host = ts.createCompilerHost(OPTIONS);
  host.resolveModuleNameLiterals = (literals, containingFile, redirected, options, containing) =>
    literals.map((literal) => {
      if (!literal.text.startsWith('.') && !literal.text.startsWith('@toolmask/')) {
        return { resolvedModule: undefined };
      }
      const mode = ts.getModeForUsageLocation(containing, literal, options);
      return ts.resolveModuleName(
        literal.text,
        containingFile,
        options,
        host,
        undefined,
        redirected,
        mode,
      );
    });
  return host;
}
