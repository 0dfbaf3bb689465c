/**
 * Packages toolmask uses for one job only, declared as optional peer dependencies (the gemini-cli
 * host's `@google/gemini-cli-core`, a team gateway's `ioredis` and AWS SDK, the OpenCode reader's
 * `sql.js`; docs/architecture.md, "Optional packages"): a default install leaves them out, and the
 * job loads its package when it runs. `loadOptionalPackage` runs that load and, when the package
 * is not installed, throws a `MissingPackageError` naming it and the command that installs it
 * (the CLI exits 2). Any other failure of the load is thrown as it came.
 */
import { ToolmaskError } from './toolmaskError.js';

/** What a job needs and the version to install: `{ name: 'ioredis', version: '6.0.0' }`. */
export interface OptionalPackage {
  name: string;
  version: string;
}

/** An optional package a job needs is not installed. Code `MISSING_PACKAGE`. */
export class MissingPackageError extends ToolmaskError<'MISSING_PACKAGE'> {
  readonly packageName: string;

  constructor(needed: OptionalPackage, job: string, options?: ErrorOptions) {
    super(
      'MISSING_PACKAGE',
      `${job} needs the package ${needed.name}, which is not installed. Install it where toolmask ` +
        `is installed: npm install -g ${needed.name}@${needed.version} (or, in a project, ` +
        `npm install ${needed.name}@${needed.version})`,
      options,
    );
    this.packageName = needed.name;
  }
}

/** Whether `error` is Node's (or a bundler's) "cannot find" for the package `name` itself. */
export function isMissingPackage(error: unknown, name: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof message !== 'string') return false;
  const notFound =
    code === 'ERR_MODULE_NOT_FOUND' ||
    code === 'MODULE_NOT_FOUND' ||
    /Cannot find (package|module)|Failed to load url/.test(message);
  // The package itself, not one of its own dependencies missing inside it.
  return notFound && new RegExp(`['"]${escapeRegExp(name)}(/[^'"]*)?['"]`).test(message);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Runs `load` (an `import()` of the package, or of a module of toolmask that imports it) and
 * resolves to what it gives; a `MissingPackageError` when the package is not installed.
 */
export async function loadOptionalPackage<T>(
  needed: OptionalPackage,
  job: string,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isMissingPackage(error, needed.name)) {
      throw new MissingPackageError(needed, job, { cause: error });
    }
    throw error;
  }
}
