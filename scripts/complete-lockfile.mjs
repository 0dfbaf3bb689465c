#!/usr/bin/env node
/**
 * Adds to package-lock.json the platform packages of qwen-code's optional clipboard dependency
 * that the registry this project installs from does not serve (it has the linux-x64 one only).
 * Without their entries `npm ci` refuses the lock file ("Missing: … from lock file"); with them,
 * marked optional for their os and cpu, npm skips them on this platform and never fetches them.
 * `npm install` keeps them; a lock file made afresh lacks them: run this script after it.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const PARENT = 'node_modules/@teddyzhu/clipboard';
const PLATFORMS = {
  'darwin-arm64': { os: 'darwin', cpu: 'arm64' },
  'darwin-x64': { os: 'darwin', cpu: 'x64' },
  'linux-arm64-gnu': { os: 'linux', cpu: 'arm64', libc: 'glibc' },
  'linux-x64-gnu': { os: 'linux', cpu: 'x64', libc: 'glibc' },
  'win32-arm64-msvc': { os: 'win32', cpu: 'arm64' },
  'win32-x64-msvc': { os: 'win32', cpu: 'x64' },
};

const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const parent = lock.packages[PARENT];
if (!parent) {
  console.log('complete-lockfile: no @teddyzhu/clipboard in the lock file; nothing to do');
  process.exit(0);
}
const packages = {};
let added = 0;
for (const [key, value] of Object.entries(lock.packages)) {
  packages[key] = value;
  if (key !== PARENT) continue;
  // npm keeps entries sorted by path: the platform packages follow their parent.
  for (const [suffix, platform] of Object.entries(PLATFORMS)) {
    const name = `${PARENT}-${suffix}`;
    if (lock.packages[name]) continue;
    packages[name] = {
      version: parent.version,
      cpu: [platform.cpu],
      ...(parent.dev ? { dev: true } : {}),
      ...(platform.libc ? { libc: [platform.libc] } : {}),
      license: parent.license,
      optional: true,
      os: [platform.os],
      ...(parent.engines ? { engines: parent.engines } : {}),
    };
    added++;
  }
}
lock.packages = packages;
writeFileSync(LOCK, JSON.stringify(lock, null, 2) + '\n');
console.log(`complete-lockfile: ${added} entr${added === 1 ? 'y' : 'ies'} added`);
