/**
 * What each launcher has loaded when it starts its client (issue 30: a launcher adds at most
 * 150 ms of CPU before the client starts, nearly all of it loading modules). The built binary runs
 * under a probe (`--import`): a module hook records every module resolved, and the probe replaces
 * `child_process.spawn`, so at the launcher's first spawn (its client's) it writes the modules
 * loaded so far (resolved ESM and `require`d CJS) and exits. Not timed: a module that comes back
 * fails here by name, whatever the machine's speed. Runs the built binary (`npm test` builds first).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { TOOLMASK_CLI } from '@toolmask/test-support/run-toolmask';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../..');
const work = mkdtempSync(path.join(tmpdir(), 'toolmask-launch-loads-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const HOOKS = `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(log, result.url + '\\n');
  return result;
}
`;
// The hook thread appends each URL before the module it names can run, so the list is complete
// when the launcher reaches spawn.
const PROBE = `import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire, register, syncBuiltinESMExports } from 'node:module';
import { pathToFileURL } from 'node:url';
const out = process.env.LOADS_OUT;
register(new URL('./hooks.mjs', import.meta.url), { data: { log: out + '.resolved' } });
const require = createRequire(import.meta.url);
require('node:child_process').spawn = () => {
  const resolved = readFileSync(out + '.resolved', 'utf8').split('\\n').filter(Boolean);
  const required = Object.keys(require.cache).map((file) => pathToFileURL(file).href);
  writeFileSync(out, JSON.stringify([...new Set([...resolved, ...required])]));
  process.exit(0);
};
syncBuiltinESMExports();
`;
writeFileSync(path.join(work, 'hooks.mjs'), HOOKS);
writeFileSync(path.join(work, 'probe.mjs'), PROBE);
const fakeClient = path.join(work, 'client');
writeFileSync(fakeClient, '#!/bin/sh\n', { mode: 0o755 });

/** The repository-relative files the launcher of `client` has loaded when it starts it. */
function loadedAtSpawn(client: string): string[] {
  const dir = mkdtempSync(path.join(work, `${client}-`));
  const home = path.join(dir, 'home');
  mkdirSync(home);
  const out = path.join(dir, 'loaded.json');
  const result = spawnSync(
    process.execPath,
    [
      '--import',
      path.join(work, 'probe.mjs'),
      TOOLMASK_CLI,
      client,
      `--${client}-bin`,
      fakeClient,
      '--state-dir',
      path.join(dir, 'state'),
      '--version',
    ],
    {
      cwd: dir,
      encoding: 'utf8',
      env: {
        PATH: process.env['PATH'],
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, '.config'),
        XDG_DATA_HOME: path.join(home, '.local', 'share'),
        TOOLMASK_HOME: path.join(dir, 'toolmask'),
        LOADS_OUT: out,
        // An account each client can be routed with, so that each gets as far as its start.
        ANTHROPIC_API_KEY: 'test-key',
        CODEX_API_KEY: 'test-key',
        GEMINI_API_KEY: 'test-key',
        OPENAI_API_KEY: 'test-key',
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      },
    },
  );
  expect(result.stderr).not.toMatch(/unexpected error/);
  expect(result.status).toBe(0);
  const urls = JSON.parse(readFileSync(out, 'utf8')) as string[];
  return urls
    .filter((url) => url.startsWith('file:'))
    .map((url) => path.relative(REPO, fileURLToPath(url)));
}

/** The npm packages (outside the workspace) among `files`, by name. */
function packagesOf(files: readonly string[]): string[] {
  const names = files.flatMap((file) => {
    const match = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
    return match?.[1] && !match[1].startsWith('@toolmask/') ? [match[1]] : [];
  });
  return [...new Set(names)].sort();
}

// What no launcher needs before its client runs: the gateway itself and core's masking and store
// (loaded once the client has started; the settings' paths need only the outputs folder's name,
// not the layout), the run's closing figures (after it exits).
const LATER = [
  'packages/gateway/dist/index.js',
  'packages/gateway/dist/listen-gateway.js',
  'packages/core/dist/index.js',
  'packages/core/dist/entries/storage.js',
  'packages/core/dist/storage/outputLayout.js',
  'packages/cli/dist/launch/run/run-figures.js',
  'packages/cli/dist/launch/run/usage-summary.js',
  'packages/cli/dist/render/format.js',
];

describe('a launcher loads only what starting its client needs', () => {
  // The packages each loads, with no settings file of any client in the home: commander (the
  // command line), and what the client's own start edits (gemini's settings in its home overlay:
  // jsonc-parser; codex's config.toml: smol-toml).
  const cases: Array<[string, string[]]> = [
    ['claude', ['commander']],
    ['codex', ['commander', 'smol-toml']],
    ['gemini', ['commander', 'jsonc-parser']],
    ['qwen', ['commander']],
    ['opencode', ['commander']],
  ];
  it.each(cases)('toolmask %s: at its client start, packages %j', (client, packages) => {
    const loaded = loadedAtSpawn(client);
    expect(loaded).toContain('packages/cli/dist/launch/run/launch-client.js');
    expect(packagesOf(loaded)).toEqual(packages);
    expect(loaded.filter((file) => LATER.includes(file))).toEqual([]);
  });
});
