import { describe, expect, it } from 'vitest';
import type { CliIo } from './cli-io.js';
import { createProgram, runCli } from './program.js';

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

const ALL = ['replay', 'outputs', 'gateway', 'keys', 'gemini', 'qwen', 'claude', 'opencode'];

describe('the program declares only the command it runs', () => {
  it('declares one command when the first argument names it, every command otherwise', async () => {
    const { io } = captured();
    const names = async (only?: string) =>
      (await createProgram(io, () => undefined, only)).commands.map((command) => command.name());
    expect(await names('claude')).toEqual(['claude']);
    expect(await names('replay')).toEqual(['replay']);
    const all = await names();
    expect(all).toEqual(expect.arrayContaining([...ALL, 'codex', 'setup', 'status', 'dashboard']));
    for (const other of ['help', '--help', 'clade', '-x']) expect(await names(other)).toEqual(all);
  });

  it("prints a command's help as it does with every command declared", async () => {
    const one = captured();
    expect(await runCli(['claude', '--help'], one.io)).toBe(0);
    const all = captured();
    expect(await runCli(['help', 'claude'], all.io)).toBe(0);
    expect(one.stdout()).toBe(all.stdout());
    expect(one.stdout()).toContain('Usage: toolmask claude');
  });
});
