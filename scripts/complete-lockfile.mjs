#!/usr/bin/env node
/**
 * Adds to package-lock.json the platform packages that the registry this project installs from
 * does not serve, for two dependencies that pick a native build by platform:
 * - qwen-code's optional clipboard dependency (`@teddyzhu/clipboard-<platform>`: only linux-x64);
 * - the end-to-end tests' `opencode-ai` (`opencode-<platform>`: only the linux-x64 ones).
 * Without their entries `npm ci` refuses the lock file ("Missing: … from lock file"); with them,
 * marked optional for their os, cpu and libc, npm skips them on this platform and never fetches
 * them. `npm install` keeps them; a lock file made afresh lacks them: run this script after it.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);

const FAMILIES = [
  {
    parent: 'node_modules/@teddyzhu/clipboard',
    name: (suffix) => `node_modules/@teddyzhu/clipboard-${suffix}`,
    platforms: {
      'darwin-arm64': { os: 'darwin', cpu: 'arm64' },
      'darwin-x64': { os: 'darwin', cpu: 'x64' },
      'linux-arm64-gnu': { os: 'linux', cpu: 'arm64', libc: 'glibc' },
      'linux-x64-gnu': { os: 'linux', cpu: 'x64', libc: 'glibc' },
      'win32-arm64-msvc': { os: 'win32', cpu: 'arm64' },
      'win32-x64-msvc': { os: 'win32', cpu: 'x64' },
    },
  },
  {
    parent: 'node_modules/opencode-ai',
    name: (suffix) => `node_modules/opencode-${suffix}`,
    platforms: {
      'darwin-arm64': { os: 'darwin', cpu: 'arm64' },
      'darwin-x64': { os: 'darwin', cpu: 'x64' },
      'darwin-x64-baseline': { os: 'darwin', cpu: 'x64' },
      'linux-arm64': { os: 'linux', cpu: 'arm64' },
      'linux-arm64-musl': { os: 'linux', cpu: 'arm64', libc: 'musl' },
      'linux-x64-baseline-musl': { os: 'linux', cpu: 'x64', libc: 'musl' },
      'linux-x64-musl': { os: 'linux', cpu: 'x64', libc: 'musl' },
      'windows-arm64': { os: 'win32', cpu: 'arm64' },
      'windows-x64': { os: 'win32', cpu: 'x64' },
      'windows-x64-baseline': { os: 'win32', cpu: 'x64' },
    },
  },
];

const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const packages = {};
let added = 0;
for (const [key, value] of Object.entries(lock.packages)) {
  packages[key] = value;
  const family = FAMILIES.find((candidate) => candidate.parent === key);
  if (!family) continue;
  // npm keeps entries sorted by path: the platform packages follow their parent.
  for (const [suffix, platform] of Object.entries(family.platforms)) {
    const name = family.name(suffix);
    if (lock.packages[name]) continue;
    packages[name] = {
      version: value.version,
      cpu: [platform.cpu],
      ...(value.dev ? { dev: true } : {}),
      ...(platform.libc ? { libc: [platform.libc] } : {}),
      ...(value.license ? { license: value.license } : {}),
      optional: true,
      os: [platform.os],
      ...(value.engines ? { engines: value.engines } : {}),
    };
    added++;
  }
}
lock.packages = packages;
writeFileSync(LOCK, JSON.stringify(lock, null, 2) + '\n');
console.log(`complete-lockfile: ${added} entr${added === 1 ? 'y' : 'ies'} added`);
