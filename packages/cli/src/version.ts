import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The package version, read from package.json (one level above src/ and dist/). */
export const CLI_VERSION: string = (require('../package.json') as { version: string }).version;

/**
 * Whether `args` (without node and script) ask for the version alone, `--version` or `-V`: what
 * the program (program.ts, commander's `.version`) prints for them, answered without loading it.
 */
export function isVersionRequest(args: readonly string[]): boolean {
  return args.length === 1 && (args[0] === '--version' || args[0] === '-V');
}
