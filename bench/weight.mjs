/**
 * Section 6a/6b, the weight of toolmask as a new user meets it (issue 30):
 *
 * - install: the three packages of this checkout, packed with `npm pack` and installed with
 *   `npm install -g` into an empty prefix with an empty npm cache (everything fetched, as on a
 *   new machine), against the same install of the set published from `main@b8a254e` (or
 *   `--weight-base COMMIT`). That set is packed from `git archive COMMIT` extracted into a temp
 *   folder, whose `node_modules` links to this checkout's installed packages (the same pinned
 *   versions; `@toolmask/*` linked to the archive's own `packages/`), built there with
 *   `npm run build`; its tarballs are kept in the temp folder for later runs. Reported: wall
 *   time, size on disk (`du`) and the largest packages in the prefix.
 * - start-up: CPU (user + system, from /proc/self/stat's children times, so Linux only) of
 *   `toolmask --version`, `toolmask gateway --help` and `toolmask claude --version` through the
 *   launcher, from the installed prefix, each paired with `node -e 0` (alternating runs). For the
 *   launcher, the CPU the toolmask process has used when the client starts: a stand-in `claude`
 *   (a shell script) reads its parent's /proc stat as its first act.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { percentile } from './childProcess.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WORKSPACES = ['@toolmask/core', '@toolmask/gateway', '@toolmask/cli'];
const TICK_MS = 1000 / 100; // USER_HZ, 100 on Linux

/** CPU milliseconds (user + system) of this process's waited-for children so far. */
function childrenCpuMs() {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) * TICK_MS;
}

/** CPU milliseconds (user + system) a /proc/PID/stat line says. */
function statCpuMs(stat) {
  const fields = stat.split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

function pack(sourceRoot, destination) {
  fs.mkdirSync(destination, { recursive: true });
  execFileSync(
    'npm',
    ['pack', ...WORKSPACES.flatMap((name) => ['-w', name]), '--pack-destination', destination],
    { cwd: sourceRoot, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  return ['cli', 'core', 'gateway'].map((name) =>
    path.join(destination, `toolmask-${name}-0.1.0.tgz`),
  );
}

/** The base commit's tarballs: archived, linked to this checkout's packages, built, packed. */
function packBase(commit, log) {
  const dir = path.join(os.tmpdir(), `toolmask-bench-weight-${commit}`);
  const tarballs = path.join(dir, 'pack');
  const done = ['cli', 'core', 'gateway'].map((n) =>
    path.join(tarballs, `toolmask-${n}-0.1.0.tgz`),
  );
  if (done.every((file) => fs.existsSync(file))) return done;
  log(`packing ${commit} in ${dir} (git archive, build, npm pack)...`);
  const source = path.join(dir, 'source');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(source, { recursive: true });
  const archive = execFileSync('git', ['archive', commit], { cwd: root, maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', source], { input: archive });
  const modules = path.join(source, 'node_modules');
  fs.mkdirSync(path.join(modules, '@toolmask'), { recursive: true });
  for (const entry of fs.readdirSync(path.join(root, 'node_modules'))) {
    if (entry === '@toolmask' || entry === '.bin') continue;
    fs.symlinkSync(path.join(root, 'node_modules', entry), path.join(modules, entry));
  }
  for (const name of ['core', 'gateway', 'cli', 'test-support']) {
    fs.symlinkSync(path.join(source, 'packages', name), path.join(modules, '@toolmask', name));
  }
  fs.symlinkSync(path.join(root, 'node_modules', '.bin'), path.join(modules, '.bin'));
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: source, stdio: 'inherit' });
  return pack(source, tarballs);
}

/** `npm install -g` of `tarballs` into an empty prefix with an empty cache: time and size. */
function install(tarballs, dir) {
  fs.rmSync(dir, { recursive: true, force: true });
  const prefix = path.join(dir, 'prefix');
  fs.mkdirSync(prefix, { recursive: true });
  const started = performance.now();
  execFileSync(
    'npm',
    [
      'install',
      '-g',
      '--prefix',
      prefix,
      '--cache',
      path.join(dir, 'cache'),
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      ...tarballs,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const seconds = (performance.now() - started) / 1000;
  const du = Number(execFileSync('du', ['-sk', prefix]).toString().split('\t')[0]);
  const sizes = new Map();
  packageSizes(path.join(prefix, 'lib'), '(prefix)', sizes);
  const largest = [...sizes].sort((a, b) => b[1] - a[1]).slice(0, 8);
  return { seconds, mb: du / 1024, largest, prefix };
}

/** Adds the KiB on disk of each package under `dir` (its own files, not its node_modules). */
function packageSizes(dir, owner, sizes) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name === 'node_modules') {
      for (const name of fs.readdirSync(full)) {
        if (name.startsWith('.')) continue;
        const scoped = name.startsWith('@')
          ? fs.readdirSync(path.join(full, name)).map((inner) => `${name}/${inner}`)
          : [name];
        for (const packageName of scoped) {
          const folder = path.join(full, packageName);
          if (fs.lstatSync(folder).isDirectory()) packageSizes(folder, packageName, sizes);
        }
      }
    } else if (entry.isDirectory()) {
      packageSizes(full, owner, sizes);
    } else {
      sizes.set(owner, (sizes.get(owner) ?? 0) + fs.lstatSync(full).blocks / 2);
    }
  }
}

/** Paired runs: `node -e 0`, then `args`, `runs` times; CPU ms of each (children times). */
function pairedCpu(args, runs, options = {}) {
  const floor = [];
  const measured = [];
  for (let run = 0; run < runs; run += 1) {
    let before = childrenCpuMs();
    spawnSync(process.execPath, ['-e', '0']);
    floor.push(childrenCpuMs() - before);
    before = childrenCpuMs();
    const result = spawnSync(process.execPath, args, { stdio: 'ignore', ...options });
    if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}`);
    measured.push(options.cpuOf ? options.cpuOf() : childrenCpuMs() - before);
  }
  return { floor, measured };
}

const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** The launcher: CPU of `toolmask claude --version` when the stand-in claude starts. */
function launcherCpu(cli, runs) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-bench-launch-'));
  const statFile = path.join(dir, 'parent-stat');
  const fake = path.join(dir, 'claude');
  fs.writeFileSync(fake, `#!/bin/sh\ncat /proc/$PPID/stat > ${JSON.stringify(statFile)}\n`, {
    mode: 0o755,
  });
  fs.mkdirSync(path.join(dir, 'home'));
  const env = { ...process.env, HOME: path.join(dir, 'home'), TOOLMASK_HOME: path.join(dir, 'tm') };
  const args = [
    cli,
    'claude',
    '--claude-bin',
    fake,
    '--state-dir',
    path.join(dir, 'state'),
    '--version',
  ];
  try {
    return pairedCpu(args, runs, {
      env,
      cpuOf: () => statCpuMs(fs.readFileSync(statFile, 'utf8')),
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function summary(label, { floor, measured }, added = false) {
  const ratio = mean(measured) / mean(floor);
  const text = added
    ? `${(mean(measured) - mean(floor)).toFixed(0)} ms over node -e 0`
    : `${ratio.toFixed(2)}x node -e 0`;
  console.log(
    `| ${label} | ${mean(floor).toFixed(0)} | ${mean(measured).toFixed(0)} (p50 ${percentile(measured, 0.5).toFixed(0)}, max ${Math.max(...measured).toFixed(0)}) | ${text} |`,
  );
  return { floorMs: mean(floor), ms: mean(measured), ratio, addedMs: mean(measured) - mean(floor) };
}

export async function runWeightBench({ baseCommit = 'b8a254e', runs = 20, log = console.error }) {
  const work = path.join(os.tmpdir(), 'toolmask-bench-weight-run');
  const base = packBase(baseCommit, log);
  const current = pack(root, path.join(work, 'pack'));
  log('installing both sets into empty prefixes (empty npm caches; this fetches everything)...');
  const before = install(base, path.join(work, 'base'));
  const after = install(current, path.join(work, 'current'));
  console.log(
    `\n### 6a. Install (npm install -g of the packed set into an empty prefix, empty cache)\n`,
  );
  console.log(`| set | time | on disk | largest packages (MB) |\n|---|---|---|---|`);
  for (const [label, result] of [
    [`main@${baseCommit}`, before],
    ['this checkout', after],
  ]) {
    const largest = result.largest.map(([name, kb]) => `${name} ${(kb / 1024).toFixed(1)}`);
    console.log(
      `| ${label} | ${result.seconds.toFixed(1)} s | ${result.mb.toFixed(1)} MB | ${largest.join(', ')} |`,
    );
  }
  const timeShare = after.seconds / before.seconds;
  const met = (ok) => (ok ? 'met' : 'NOT met');
  console.log(
    `Goals: <= 50 MB on disk: ${met(after.mb <= 50)} (${after.mb.toFixed(1)} MB); <= 20% of the install time: ${met(timeShare <= 0.2)} (${(timeShare * 100).toFixed(0)}%)`,
  );

  const cli = path.join(
    after.prefix,
    'lib',
    'node_modules',
    '@toolmask',
    'cli',
    'dist',
    'index.js',
  );
  console.log(
    `\n### 6b. Start-up CPU (user + system, ms, mean of ${runs} runs paired with node -e 0)\n`,
  );
  console.log('| command | node -e 0 | toolmask | |\n|---|---|---|---|');
  const version = summary('toolmask --version', pairedCpu([cli, '--version'], runs));
  const help = summary('toolmask gateway --help', pairedCpu([cli, 'gateway', '--help'], runs));
  const launcher = summary(
    'toolmask claude --version (until claude starts)',
    launcherCpu(cli, runs),
    true,
  );
  console.log(
    `Goals: --version <= 1.5x node -e 0: ${met(version.ratio <= 1.5)}; a launcher adds <= 150 ms before the client starts: ${met(launcher.addedMs <= 150)}`,
  );
  return { install: { before, after }, startup: { version, help, launcher } };
}
