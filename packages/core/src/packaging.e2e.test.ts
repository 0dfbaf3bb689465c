/**
 * The packages as a host installs them: the tarballs (`npm pack`; the CLI needs the gateway's)
 * installed into a host folder that has its own `@google/gemini-cli-core`. The host, and `@opentelemetry/api`, are peers: the
 * installed toolmask has no copy of its own, the host's `GeminiClient.prototype` is the one
 * patched, and a settings warning reaches the host's `coreEvents`. Also: only the curated entry
 * points are reachable; each tarball carries the LICENSE (the repository's Apache-2.0 text) and a
 * README, and `toolmask --help` names documentation that is in the installed package.
 *
 * Installs from npm's cache (`--prefer-offline`): `npm ci` of this repository fills it with the
 * very versions the host needs.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const coreVersion = (
  JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  }
).devDependencies['@google/gemini-cli-core'];

/** What the host runs: install toolmask on its Config, report what it saw as one JSON line. */
const HOST_SCRIPT = `
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import * as hostCore from '@google/gemini-cli-core';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-host-'));
process.env.GEMINI_CLI_HOME = dir;
const settings = path.join(dir, 'broken-settings.json');
fs.writeFileSync(settings, '{ "experimental": { "toolOutputMasking": { "toolProtectionThreshold": "big" } } }');
const feedback = [];
hostCore.coreEvents.on(hostCore.CoreEvent.UserFeedback, (payload) => feedback.push(payload.message));
const { installToolOutputMasking } = await import('@toolmask/core');
const config = new hostCore.Config({
  sessionId: 's1', targetDir: dir, cwd: dir, debugMode: false, model: 'gemini-2.5-flash',
  interactive: false, usageStatisticsEnabled: false, maxAttempts: 1,
});
await config.initialize();
const original = hostCore.GeminiClient.prototype.sendMessageStream;
const installation = installToolOutputMasking(config, { userSettingsPath: settings });
const patched = hostCore.GeminiClient.prototype.sendMessageStream !== original;
await installation.ready;
const readTool = !!config.getToolRegistry().getTool('read_tool_output');
await installation.host.getToolOutputMaskingConfig();
await new Promise((resolve) => setTimeout(resolve, 20));
installation.uninstall();
const restored = hostCore.GeminiClient.prototype.sendMessageStream === original;
const require = createRequire(import.meta.url);
const deep = [];
for (const specifier of ['@toolmask/core/dist/services/maskingPlan.js', '@toolmask/core/dist/index.js']) {
  try { await import(specifier); deep.push(specifier + ': reachable'); }
  catch (error) { deep.push(specifier + ': ' + error.code); }
}
const subpaths = {};
for (const entry of ['settings', 'storage', 'telemetry', 'errors', 'estimator', 'utils', 'tuning', 'read-tool-output']) {
  subpaths[entry] = Object.keys(await import('@toolmask/core/' + entry)).length;
}
fs.rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ patched, restored, readTool, feedback, deep, subpaths }));
`;

interface HostReport {
  patched: boolean;
  restored: boolean;
  readTool: boolean;
  feedback: string[];
  deep: string[];
  subpaths: Record<string, number>;
}

describe('the packed packages in a host that has its own @google/gemini-cli-core', () => {
  let host: string;

  beforeAll(() => {
    host = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-pack-'));
    execFileSync(
      'npm',
      [
        'pack',
        './packages/core',
        './packages/gateway',
        './packages/cli',
        '--pack-destination',
        host,
        '--silent',
      ],
      { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const tarballs = fs.readdirSync(host).filter((name) => name.endsWith('.tgz'));
    const tarball = (name: string) => `file:./${tarballs.find((t) => t.startsWith(name))}`;
    fs.writeFileSync(
      path.join(host, 'package.json'),
      JSON.stringify({
        name: 'host',
        private: true,
        type: 'module',
        dependencies: {
          '@google/gemini-cli-core': coreVersion,
          '@toolmask/core': tarball('toolmask-core-'),
          '@toolmask/gateway': tarball('toolmask-gateway-'),
          '@toolmask/cli': tarball('toolmask-cli-'),
        },
      }),
    );
    execFileSync(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--loglevel=error',
      ],
      { cwd: host, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, CI: 'true' } },
    );
    fs.writeFileSync(path.join(host, 'check.mjs'), HOST_SCRIPT);
  }, 240_000);

  afterAll(() => {
    if (host) fs.rmSync(host, { recursive: true, force: true });
  });

  it('toolmask has no copy of the host or of the OpenTelemetry API', () => {
    const nested = path.join(host, 'node_modules', '@toolmask', 'core', 'node_modules');
    for (const peer of [
      '@google/gemini-cli-core',
      '@opentelemetry/api',
      '@opentelemetry/api-logs',
    ]) {
      expect(fs.existsSync(path.join(nested, peer)), peer).toBe(false);
    }
    const cliNested = path.join(host, 'node_modules', '@toolmask', 'cli', 'node_modules');
    expect(fs.existsSync(path.join(cliNested, '@toolmask', 'core'))).toBe(false);
  });

  it("patches the host's GeminiClient, registers the read-back tool, warns through the host's coreEvents", () => {
    const output = execFileSync(process.execPath, ['check.mjs'], {
      cwd: host,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const report = JSON.parse(output.trim().split('\n').at(-1) as string) as HostReport;
    expect(report.patched).toBe(true);
    expect(report.restored).toBe(true);
    expect(report.readTool).toBe(true);
    expect(report.feedback).toEqual([
      expect.stringMatching(
        /^toolmask: Invalid setting experimental\.toolOutputMasking\.toolProtectionThreshold in .*broken-settings\.json: expected non-negative integer/,
      ),
    ]);
    // Internals are not reachable; each subpath is.
    expect(report.deep).toEqual([
      '@toolmask/core/dist/services/maskingPlan.js: ERR_PACKAGE_PATH_NOT_EXPORTED',
      '@toolmask/core/dist/index.js: ERR_PACKAGE_PATH_NOT_EXPORTED',
    ]);
    for (const count of Object.values(report.subpaths)) expect(count).toBeGreaterThan(0);
  });

  it('the tarballs ship no tests, test utilities or fixtures', () => {
    for (const name of ['core', 'gateway']) {
      const dist = path.join(host, 'node_modules', '@toolmask', name, 'dist');
      const files = fs.readdirSync(dist, { recursive: true }) as string[];
      expect(files.filter((file) => /test/.test(file))).toEqual([]);
    }
    // The dashboard page ships whole: its HTML, style sheet and modules.
    const gateway = path.join(host, 'node_modules', '@toolmask', 'gateway');
    for (const file of ['web/static/index.html', 'web/static/dashboard.css', 'dist/web/main.js']) {
      expect(fs.existsSync(path.join(gateway, file)), file).toBe(true);
    }
  });

  it('the tarballs ship no source or declaration maps (their sources are not in the package)', () => {
    for (const name of ['core', 'gateway', 'cli']) {
      const dist = path.join(host, 'node_modules', '@toolmask', name, 'dist');
      const files = fs.readdirSync(dist, { recursive: true }) as string[];
      expect(
        files.filter((file) => file.endsWith('.map')),
        name,
      ).toEqual([]);
      expect(
        files.some((file) => file.endsWith('.d.ts')),
        name,
      ).toBe(true);
    }
  });

  it("every tarball carries the LICENSE (the repository's Apache-2.0 text) and a README", () => {
    const license = fs.readFileSync(path.join(repo, 'LICENSE'), 'utf8');
    expect(license).toMatch(/^\s+Apache License\s+Version 2\.0, January 2004/);
    for (const name of ['core', 'gateway', 'cli']) {
      const installed = path.join(host, 'node_modules', '@toolmask', name);
      expect(fs.readFileSync(path.join(installed, 'LICENSE'), 'utf8'), name).toBe(license);
      const readme = fs.readFileSync(path.join(installed, 'README.md'), 'utf8');
      expect(readme, name).toMatch(new RegExp(`^# @toolmask/${name}\n`));
      expect(readme, name).toContain('Apache-2.0');
      const manifest = JSON.parse(
        fs.readFileSync(path.join(installed, 'package.json'), 'utf8'),
      ) as { license: string };
      expect(manifest.license, name).toBe('Apache-2.0');
    }
  });

  it('toolmask --help names documentation that is in the installed package', () => {
    const help = execFileSync(
      process.execPath,
      [path.join(host, 'node_modules', '@toolmask', 'cli', 'dist', 'index.js'), '--help'],
      { cwd: host, encoding: 'utf8' },
    );
    const named = /^Documentation: (.+)$/m.exec(help)?.[1];
    // Absolute: it opens from any folder (issue 24).
    expect(named).toBe(path.join(host, 'node_modules', '@toolmask', 'cli', 'README.md'));
    expect(fs.existsSync(named!)).toBe(true);
  });
});
