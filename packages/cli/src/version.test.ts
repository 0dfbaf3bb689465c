import { describe, expect, it } from 'vitest';
import type { CliIo } from './cli-io.js';
import { runCli } from './program.js';
import { CLI_VERSION, isVersionRequest } from './version.js';

function captured(): { io: CliIo; stdout: () => string } {
  let out = '';
  const io: CliIo = {
    stdout: { write: (text: string) => ((out += text), true) },
    stderr: { write: () => true },
    env: {},
    cwd: process.cwd(),
  } as unknown as CliIo;
  return { io, stdout: () => out };
}

describe('isVersionRequest', () => {
  it('is --version or -V alone', () => {
    expect(isVersionRequest(['--version'])).toBe(true);
    expect(isVersionRequest(['-V'])).toBe(true);
    expect(isVersionRequest([])).toBe(false);
    expect(isVersionRequest(['claude', '--version'])).toBe(false);
    expect(isVersionRequest(['--version', '--help'])).toBe(false);
    expect(isVersionRequest(['--help'])).toBe(false);
  });

  it('prints what the program prints for it (the binary answers it without the program)', async () => {
    for (const flag of ['--version', '-V']) {
      const { io, stdout } = captured();
      expect(await runCli([flag], io)).toBe(0);
      expect(stdout()).toBe(`${CLI_VERSION}\n`);
    }
  });
});
