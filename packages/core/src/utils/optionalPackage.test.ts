import { describe, expect, it } from 'vitest';
import { ToolmaskError } from './toolmaskError.js';
import { MissingPackageError, isMissingPackage, loadOptionalPackage } from './optionalPackage.js';

const ABSENT = { name: 'toolmask-absent-package-for-tests', version: '1.2.3' };

describe('loadOptionalPackage', () => {
  it('names the package and how to install it when the package is not installed', async () => {
    const loading = loadOptionalPackage(
      ABSENT,
      'the test job',
      // A variable specifier: the real resolver, not the bundler's static analysis.
      () => import(/* @vite-ignore */ [ABSENT.name, 'index.js'].join('/')),
    );
    const error = await loading.catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(MissingPackageError);
    expect(error).toBeInstanceOf(ToolmaskError);
    expect(error).toMatchObject({ code: 'MISSING_PACKAGE', packageName: ABSENT.name });
    expect((error as Error).message).toContain('the test job needs the package');
    expect((error as Error).message).toContain(`npm install -g ${ABSENT.name}@1.2.3`);
  });

  it('gives what the load gives when the package is there', async () => {
    const loaded = await loadOptionalPackage(
      { name: 'node:path', version: '0' },
      'job',
      () => import('node:path'),
    );
    expect(loaded.join('a', 'b')).toBe('a/b');
  });

  it("throws any other failure as it came, a dependency's own missing package included", async () => {
    const inside = Object.assign(
      new Error(
        "Cannot find package 'denque' imported from /x/node_modules/ioredis/built/Redis.js",
      ),
      { code: 'ERR_MODULE_NOT_FOUND' },
    );
    const failing = loadOptionalPackage({ name: 'ioredis', version: '6.0.0' }, 'job', () =>
      Promise.reject(inside),
    );
    await expect(failing).rejects.toBe(inside);
    const other = new TypeError('boom');
    await expect(loadOptionalPackage(ABSENT, 'job', () => Promise.reject(other))).rejects.toBe(
      other,
    );
  });
});

describe('isMissingPackage', () => {
  it("recognises Node's message for the package and for a subpath of it", () => {
    const missing = (message: string) =>
      Object.assign(new Error(message), { code: 'ERR_MODULE_NOT_FOUND' });
    expect(
      isMissingPackage(
        missing("Cannot find package '@google/gemini-cli-core' imported from /a/b.js"),
        '@google/gemini-cli-core',
      ),
    ).toBe(true);
    expect(
      isMissingPackage(missing("Cannot find package 'sql.js' imported from /a"), 'sqlxjs'),
    ).toBe(false);
    expect(isMissingPackage('not an error', 'x')).toBe(false);
  });
});
