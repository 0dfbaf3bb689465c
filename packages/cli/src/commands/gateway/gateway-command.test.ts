import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { listenGateway } from '@toolmask/gateway';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../program.js';
import { runCliCaptured } from '../../test-data/run-cli.js';
import { redisAvailable, startRedisServer } from '@toolmask/test-support/redis-server';

let root: string | undefined;
afterEach(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
  root = undefined;
});

async function stateFolder(): Promise<string> {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-gateway-command-'));
  return path.join(root, 'state');
}

describe('toolmask gateway and toolmask dashboard: numeric options', () => {
  it('a port out of range is bad usage (exit 2) with one clear line, never a stack', async () => {
    for (const args of [
      ['gateway', '--port', '99999'],
      ['gateway', '--port', '65536'],
      ['gateway', '--port', '-1'],
      ['dashboard', '--telemetry-outfile', 'x.log', '--port', '70000'],
    ]) {
      const run = await runCliCaptured(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toContain(
        `error: option '--port <port>' argument '${args.at(-1)}' is invalid. expected a port from 0 to 65535 (0 picks a free one).`,
      );
      expect(run.stderr).not.toMatch(/RangeError|\n\s+at /);
    }
  });

  it('byte counts and days that would overflow further on are bad usage too', async () => {
    const cases = [
      ['--max-body-mb', '5000', 'expected a number of MiB from 1 to 4096.'],
      ['--max-in-flight-mb', '99999999999', 'expected a number of MiB from 1 to 1048576.'],
      // Accepted before, then "retention: could not prune usage records: Invalid time value".
      [
        '--retention-days',
        '99999999999',
        'expected a number of days from 0 (keep everything) to 36500.',
      ],
    ];
    for (const [option, value, message] of cases) {
      const run = await runCliCaptured(['gateway', option as string, value as string]);
      expect(run.code, option).toBe(2);
      expect(run.stderr, option).toContain(`argument '${value}' is invalid. ${message}`);
    }
    const gc = await runCliCaptured(['outputs', 'gc', '--older-than', '99999999999d']);
    expect(gc.code).toBe(2);
    expect(gc.stderr).toContain('expected a duration of at most 100 years (36500d).');
  });
});

describe('toolmask gateway: one already running for the state folder', () => {
  it('is named (address, pid) and the second is refused with exit 1; --allow-second starts it', async () => {
    const stateDir = await stateFolder();
    const first = await listenGateway({ port: 0, stateDir, retentionDays: 0 });
    try {
      const second = await runCliCaptured(['gateway', '--port', '0', '--state-dir', stateDir]);
      expect(second.code).toBe(1);
      expect(second.stdout).toBe('');
      const secret = (await fs.readFile(path.join(stateDir, 'access-secret'), 'utf8')).trim();
      expect(second.stderr).toMatch(
        new RegExp(
          `^toolmask: a gateway is already running for ${stateDir}: ${first.url} \\(pid ${process.pid}, up \\d+s\\)\\.\\n`,
        ),
      );
      expect(second.stderr).toContain(`its dashboard: ${first.url}/?token=${secret}\n`);
      expect(second.stderr).toContain(`kill ${process.pid}\n`);
      expect(second.stderr).toContain('--allow-second');

      let stdout = '';
      const code = await runCli(
        ['gateway', '--port', '0', '--state-dir', stateDir, '--allow-second'],
        {
          stdout: { write: (text: string) => (stdout += text) },
          stderr: { write: () => true },
          env: {},
          cwd: process.cwd(),
          // Stops it as soon as it listens.
          shutdownSignal: () => Promise.resolve('SIGTERM'),
        },
      );
      expect(code).toBe(0);
      expect(stdout).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\n$/);
      expect(stdout).not.toContain(first.url);
    } finally {
      await first.close();
    }
  });

  it('two started at the same instant: the state lock lets one through; a stale lock is taken over', async () => {
    const stateDir = await stateFolder();
    const start = () => {
      let stdout = '';
      let stderr = '';
      let stop: (signal: string) => void = () => {};
      const stopped = new Promise<string>((resolve) => (stop = resolve));
      const code = runCli(['gateway', '--port', '0', '--state-dir', stateDir], {
        stdout: { write: (text: string) => ((stdout += text), true) },
        stderr: { write: (text: string) => ((stderr += text), true) },
        env: {},
        cwd: process.cwd(),
        shutdownSignal: () => stopped,
      });
      return { code, stop, out: () => stdout, err: () => stderr };
    };
    // The lock of a gateway whose process is gone (a pid no process has) does not hold.
    await fs.mkdir(stateDir, { recursive: true, mode: 0o700 });
    await fs.writeFile(path.join(stateDir, 'gateway.lock'), '2147483646\n', { mode: 0o600 });
    const first = start();
    const second = start();
    // One of them refuses at once; the other listens until told to stop.
    const refused = await Promise.race([
      first.code.then(() => 'first'),
      second.code.then(() => 'second'),
    ]);
    const [loser, winner] = refused === 'first' ? [first, second] : [second, first];
    expect(await loser.code).toBe(1);
    expect(loser.err()).toMatch(/already running/);
    winner.stop('SIGTERM');
    expect(await winner.code).toBe(0);
    expect(winner.out()).toMatch(/^listening on /);
    // Released at exit: the next start goes through.
    await expect(fs.access(path.join(stateDir, 'gateway.lock'))).rejects.toThrow();
  });
});

describe('toolmask gateway: team flags', () => {
  it('a team flag without --store, a bad store or outputs value, or an unset key variable is bad usage (exit 2)', async () => {
    const stateDir = await stateFolder();
    const cases: Array<[string[], string]> = [
      [
        ['--outputs', 's3://bucket/prefix'],
        '--outputs is for a team gateway: add --store redis://...',
      ],
      [['--provider-key-env', 'X'], '--provider-key-env is for a team gateway'],
      [['--store', 'http://127.0.0.1:6379'], '--store "http://127.0.0.1:6379"'],
      [
        ['--store', 'redis://127.0.0.1:6379', '--outputs', 's3://B/x'],
        '--outputs "s3://B/x": bucket name "B" must be 3 to 63 characters long',
      ],
      [
        ['--store', 'redis://127.0.0.1:6379', '--s3-endpoint', 'http://127.0.0.1:9000'],
        '--s3-endpoint goes with --outputs s3://BUCKET/PREFIX',
      ],
      [
        ['--store', 'redis://127.0.0.1:6379', '--provider-key-env', 'TOOLMASK_TEST_UNSET_KEY'],
        '--provider-key-env TOOLMASK_TEST_UNSET_KEY: the environment variable TOOLMASK_TEST_UNSET_KEY is not set',
      ],
      [
        ['--store', 'redis://127.0.0.1:6379', '--provider-key-env', 'claude=X'],
        '--provider-key-env claude=X: name an API (gemini, vertex, codeAssist, openai, anthropic) before =',
      ],
      [
        [
          ...['--store', 'redis://127.0.0.1:6379', '--provider-key-env'],
          'anthropic=TOOLMASK_TEST_UNSET_KEY',
        ],
        '--provider-key-env TOOLMASK_TEST_UNSET_KEY: the environment variable TOOLMASK_TEST_UNSET_KEY is not set',
      ],
    ];
    for (const [flags, message] of cases) {
      const run = await runCliCaptured([
        'gateway',
        '--port',
        '0',
        '--state-dir',
        stateDir,
        '--allow-second',
        ...flags,
      ]);
      expect(run.code, flags.join(' ')).toBe(2);
      expect(run.stderr, flags.join(' ')).toContain(message);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe('toolmask gateway --settings: checked at start, as the launchers check theirs', () => {
  async function settingsFile(block: Record<string, unknown>): Promise<string> {
    const state = await stateFolder();
    const file = path.join(path.dirname(state), 'settings.json');
    await fs.writeFile(file, JSON.stringify({ experimental: { toolOutputMasking: block } }));
    return file;
  }

  it('a typo, a wrong type and a missing file: exit 2, naming the file, the key and the type', async () => {
    const typo = await settingsFile({ toolProtectionThresold: 5 });
    const wrongType = path.join(path.dirname(typo), 'wrong.json');
    await fs.writeFile(
      wrongType,
      JSON.stringify({ experimental: { toolOutputMasking: { toolProtectionThreshold: '50k' } } }),
    );
    const missing = path.join(path.dirname(typo), 'nonexistent.json');
    const cases: Array<[string, string[]]> = [
      [typo, ['toolProtectionThresold', 'toolProtectionThreshold']],
      [
        wrongType,
        ['experimental.toolOutputMasking.toolProtectionThreshold', 'non-negative integer'],
      ],
      [missing, ['does not exist (named by --settings)']],
    ];
    for (const [file, words] of cases) {
      const run = await runCliCaptured(['gateway', '--port', '0', '--settings', file], {
        env: { HOME: path.dirname(file) },
      });
      expect(run.code, file).toBe(2);
      expect(run.stdout, file).toBe('');
      expect(run.stderr, file).toContain(`the masking settings in ${file}`);
      expect(run.stderr, file).toContain('no gateway was started');
      expect(run.stderr, file).toContain('or name another with --settings FILE');
      for (const word of words) expect(run.stderr, file).toContain(word);
    }
  });

  it("without --settings, a client's own toolmask.json is checked too (issue 35, item 10)", async () => {
    const home = path.dirname(await stateFolder());
    const file = path.join(home, 'codex-home', 'toolmask.json');
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, '{ "minPrunableTokensThreshold": true }');
    const run = await runCliCaptured(['gateway', '--port', '0'], {
      env: { HOME: home, GEMINI_CLI_HOME: home, CODEX_HOME: path.dirname(file) },
    });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`the masking settings in ${file} have a mistake; no gateway`);
    expect(run.stderr).toContain(
      `Invalid setting minPrunableTokensThreshold in ${file}: expected non-negative integer, got a boolean.`,
    );
  });

  it('a launcher refuses a --masking-settings file that does not exist', async () => {
    const state = await stateFolder();
    const missing = path.join(path.dirname(state), 'nonexistent.json');
    const bin = path.join(path.dirname(state), 'claude');
    await fs.writeFile(bin, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const run = await runCliCaptured(
      ['claude', '--claude-bin', bin, '--masking-settings', missing, '-p', 'hi'],
      { env: { HOME: path.dirname(state), PATH: process.env['PATH'] } },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${missing} does not exist (named by --masking-settings)`);
  });
});

describe.skipIf(!redisAvailable('the team replica start-up test'))(
  'toolmask gateway --store: bound beyond loopback (issue 33, finding 13)',
  () => {
    it('warns at start that it speaks plain HTTP, unless --behind-tls or bound to loopback', async () => {
      const redis = await startRedisServer();
      const folder = await stateFolder();
      let started = 0;
      try {
        const start = async (flags: string[]) => {
          let stderr = '';
          const code = await runCli(
            [
              ...['gateway', '--port', '0', '--state-dir', `${folder}-${started++}`],
              ...['--store', redis.url, '--allow-second', ...flags],
            ],
            {
              stdout: { write: () => true },
              stderr: { write: (text: string) => ((stderr += text), true) },
              env: {},
              cwd: process.cwd(),
              shutdownSignal: () => Promise.resolve('SIGTERM'),
            },
          );
          expect(code).toBe(0);
          return stderr;
        };
        const warning =
          /warning: listening on 0\.0\.0\.0 over plain HTTP, and every request carries a key: put a TLS terminator in front/;
        expect(await start(['--host', '0.0.0.0'])).toMatch(warning);
        expect(await start(['--host', '0.0.0.0', '--behind-tls'])).not.toMatch(/plain HTTP/);
        expect(await start([])).not.toMatch(/plain HTTP/);
      } finally {
        await redis.close();
      }
    }, 60_000);
  },
);
