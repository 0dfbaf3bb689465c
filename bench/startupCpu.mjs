/**
 * Start-up CPU of toolmask's builds, paired and interleaved (issue 30, bench section 6b's goals):
 *
 *   node bench/startupCpu.mjs [--base DIR] [--runs N]
 *
 * For this checkout's build (and `--base`'s, another checkout built with `npm run build`), each
 * round runs, in an order that rotates from round to round:
 * - `node -e 0`, the floor;
 * - `toolmask --version` (`packages/cli/dist/index.js`);
 * - the launcher, `toolmask claude --claude-bin FAKE --state-dir EMPTY --version` with an empty
 *   home, up to the moment it starts the client: run with `--import` of a probe that replaces
 *   `child_process.spawn` and, at its first call, records `process.cpuUsage()` (user + system of
 *   every thread, V8's compiler and GC threads included) and exits;
 * - the same probe around `node -e "require('node:child_process').spawn('true')"`, the floor of
 *   that measure (node's own start and the probe's): the launcher's "added" CPU is over it.
 * A whole command's CPU is user + system of the waited-for child from `bash`'s `times`
 * (getrusage, millisecond resolution). Linux only. Printed: the means, p50s, `--version`'s ratio to
 * `node -e 0` and the launcher's added ms, against the goals (≤ 1.5x; ≤ 150 ms).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function argument(name) {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : process.argv[at + 1];
}

/** CPU ms (user + system) of `command`, from bash's `times` (its children's line). */
function commandCpuMs(command, env) {
  const result = spawnSync(
    'bash',
    ['-c', '"$@" >/dev/null 2>&1; status=$?; times; exit $status', 'bash', ...command],
    { env, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`${command.join(' ')} exited ${result.status}`);
  const [user, system] = result.stdout
    .trim()
    .split('\n')[1]
    .split(' ')
    .map((time) => {
      const [, minutes, seconds] = /^(\d+)m([\d.]+)s$/.exec(time);
      return (Number(minutes) * 60 + Number(seconds)) * 1000;
    });
  return user + system;
}

/**
 * A preload for `--import`: at the process's first `child_process.spawn` (a launcher's client), it
 * writes the CPU the process has used so far (`process.cpuUsage()`: user + system of every thread,
 * microseconds) to `$TOOLMASK_BENCH_SPAWN_CPU` and exits 0 without spawning. Measured there, in
 * the process, the figure holds nothing of what the launcher does while a real client would start
 * (it loads the gateway then), however long the machine takes to schedule that client.
 */
function spawnProbe(dir) {
  const file = path.join(dir, 'spawn-probe.mjs');
  fs.writeFileSync(
    file,
    [
      "import { writeFileSync } from 'node:fs';",
      "import { createRequire, syncBuiltinESMExports } from 'node:module';",
      "const childProcess = createRequire(import.meta.url)('node:child_process');",
      'childProcess.spawn = () => {',
      '  const { user, system } = process.cpuUsage();',
      '  writeFileSync(process.env.TOOLMASK_BENCH_SPAWN_CPU, String((user + system) / 1000));',
      '  process.exit(0);',
      '};',
      'syncBuiltinESMExports();',
      '',
    ].join('\n'),
  );
  return file;
}

/** CPU ms of `node --import PROBE ...args` when it first calls `spawn`. */
function cpuAtSpawnMs(args, probe, dir, env) {
  const out = path.join(dir, 'spawn-cpu');
  fs.rmSync(out, { force: true });
  const state = path.join(dir, 'state');
  fs.rmSync(state, { recursive: true, force: true });
  const result = spawnSync(process.execPath, ['--import', probe, ...args], {
    env: { ...env, TOOLMASK_BENCH_SPAWN_CPU: out },
    stdio: 'ignore',
  });
  if (result.status !== 0 || !fs.existsSync(out)) {
    throw new Error(`node ${args.join(' ')} exited ${result.status} before spawning`);
  }
  return Number(fs.readFileSync(out, 'utf8'));
}

/**
 * CPU ms of the launcher when its client starts, as bench section 6b (weight.mjs) measures it: a
 * stand-in client reads its parent's /proc stat (clock ticks, 10 ms) as its first act. That figure
 * also holds what the launcher does until the client is scheduled (it loads the gateway then).
 */
function launcherAsSection6bMs(cli, dir, env) {
  const statFile = path.join(dir, 'parent-stat');
  const fake = path.join(dir, 'claude-6b');
  if (!fs.existsSync(fake)) {
    fs.writeFileSync(fake, `#!/bin/sh\ncat /proc/$PPID/stat > ${JSON.stringify(statFile)}\n`, {
      mode: 0o755,
    });
  }
  fs.rmSync(statFile, { force: true });
  const state = path.join(dir, 'state');
  fs.rmSync(state, { recursive: true, force: true });
  const result = spawnSync(
    process.execPath,
    [cli, 'claude', '--claude-bin', fake, '--state-dir', state, '--version'],
    { env, stdio: 'ignore' },
  );
  if (result.status !== 0) throw new Error(`the launcher of ${cli} exited ${result.status}`);
  const fields = fs.readFileSync(statFile, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const SPAWN_FLOOR = 'node -e "spawn()", at the spawn';
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export function runStartupCpu({ builds, runs = 20, log = console.error }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-bench-startup-'));
  fs.mkdirSync(path.join(dir, 'home'));
  const env = { ...process.env, HOME: path.join(dir, 'home'), TOOLMASK_HOME: path.join(dir, 'tm') };
  delete env.NODE_OPTIONS;
  const probe = spawnProbe(dir);
  const fake = path.join(dir, 'claude');
  fs.writeFileSync(fake, '#!/bin/sh\n', { mode: 0o755 });
  const state = path.join(dir, 'state');
  const tasks = [
    ['node -e 0', () => commandCpuMs([process.execPath, '-e', '0'], env)],
    [
      SPAWN_FLOOR,
      () => cpuAtSpawnMs(['-e', "require('node:child_process').spawn('true')"], probe, dir, env),
    ],
  ];
  for (const build of builds) {
    const cli = path.join(build.root, 'packages', 'cli', 'dist', 'index.js');
    tasks.push([
      `${build.label}: toolmask --version`,
      () => commandCpuMs([process.execPath, cli, '--version'], env),
    ]);
    tasks.push([
      `${build.label}: launcher until the client starts`,
      () =>
        cpuAtSpawnMs(
          [cli, 'claude', '--claude-bin', fake, '--state-dir', state, '--version'],
          probe,
          dir,
          env,
        ),
    ]);
    tasks.push([
      `${build.label}: launcher as section 6b measures it`,
      () => launcherAsSection6bMs(cli, dir, env),
    ]);
  }
  const samples = new Map(tasks.map(([label]) => [label, []]));
  try {
    for (const [, task] of tasks) task(); // warm the file cache; not counted
    for (let round = 0; round < runs; round += 1) {
      for (let index = 0; index < tasks.length; index += 1) {
        const [label, task] = tasks[(index + round) % tasks.length];
        samples.get(label).push(task());
      }
      if ((round + 1) % 5 === 0) log(`round ${round + 1}/${runs}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const floor = mean(samples.get('node -e 0'));
  const spawnFloor = mean(samples.get(SPAWN_FLOOR));
  console.log(
    `\nStart-up CPU (user + system, ms), ${runs} interleaved rounds, load average ${os
      .loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}\n`,
  );
  console.log('| command | mean | p50 | vs node -e 0 |\n|---|---|---|---|');
  const results = {};
  for (const [label, values] of samples) {
    const value = mean(values);
    const versus = label.endsWith('--version')
      ? `${(value / floor).toFixed(2)}x node -e 0 (goal ≤ 1.5x)`
      : label.endsWith('starts') || label.endsWith('measures it')
        ? `+${(value - spawnFloor).toFixed(0)} ms over the spawn floor, +${(value - floor).toFixed(0)} over node -e 0 (goal ≤ +150 ms)`
        : '';
    console.log(`| ${label} | ${value.toFixed(0)} | ${median(values).toFixed(0)} | ${versus} |`);
    results[label] = { mean: value, p50: median(values), values };
  }
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const base = argument('base');
  const builds = [{ label: 'this checkout', root }];
  if (base) builds.push({ label: `base (${path.basename(base)})`, root: path.resolve(base) });
  runStartupCpu({ builds, runs: Number(argument('runs') ?? 20) });
}
