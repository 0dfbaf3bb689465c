/**
 * What a path of the repository is to the structure checks: which package it belongs to, whether
 * it is package source, a test or a test helper, and whether it is a program outside the packages
 * (the bench, the scripts, the examples). Paths only: nothing here reads a file.
 */

/** A path split at its package: `packages/<name>/src/<inSource>`. */
export interface PackagePath {
  name: string;
  /** The path inside the package's `src/`, or undefined for a file outside it (`web/`). */
  inSource: string | undefined;
}

/** Test suffixes: `*.test.ts` of every lane (`.e2e.test.ts`, ...) ends the same way. */
const TEST_FILE = /\.test\.[cm]?[jt]s$/;
/**
 * Folders of test helpers that stay beside their package's tests (test-support's README), and
 * `team-attacks`: the adversarial runner of scripts/, a test program run by hand (it loads
 * test-support's build through `@toolmask/test-support/dist/*`).
 */
const TEST_HELPER_FOLDERS = ['test-utils', 'test-fixtures', 'test-data', 'team-attacks'];
/** The programs outside the packages: they may use the packages only through `exports`. */
const OUTSIDE_PROGRAMS = ['bench/', 'scripts/', 'examples/'];

export function packageOf(file: string): PackagePath | undefined {
  const match = /^packages\/([^/]+)\/(.*)$/.exec(file);
  if (!match) return undefined;
  const [, name, rest] = match as unknown as [string, string, string];
  return { name, inSource: rest.startsWith('src/') ? rest.slice('src/'.length) : undefined };
}

export function isTestFile(file: string): boolean {
  return TEST_FILE.test(file);
}

/**
 * A test, or code only tests use: `*.test.ts`, a file under a test helper folder, or anything in
 * `packages/test-support`.
 */
export function isTestCode(file: string): boolean {
  if (isTestFile(file)) return true;
  if (packageOf(file)?.name === 'test-support') return true;
  return file.split('/').some((segment) => TEST_HELPER_FOLDERS.includes(segment));
}

export function isOutsideProgram(file: string): boolean {
  return OUTSIDE_PROGRAMS.some((folder) => file.startsWith(folder));
}

/** Code the import graph reads: TypeScript in the packages, JavaScript modules everywhere. */
export function isCodeFile(file: string): boolean {
  if (/\.d\.ts$/.test(file)) return false;
  const inPackages = file.startsWith('packages/');
  if (!inPackages && !isOutsideProgram(file)) return false;
  return /\.(ts|mts|mjs|js)$/.test(file);
}
