/**
 * The registry of clients: the five, each once, in the order of the commands; every adapter
 * folder with the same files; and what each adapter declares that the shared code acts on (how
 * its requests reach a gateway's upstreams, its binary, where its masking settings may live).
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLIENTS, clientNamed } from './index.js';

const here = path.dirname(fileURLToPath(import.meta.url));

describe('the clients registry', () => {
  it('lists five clients, each once, in the order of the commands and their help', () => {
    expect(CLIENTS.map((client) => client.name)).toEqual([
      'gemini',
      'qwen',
      'claude',
      'codex',
      'opencode',
    ]);
    expect(clientNamed('codex')?.name).toBe('codex');
    expect(clientNamed('cursor')).toBeUndefined();
  });

  it('every adapter folder has the same files, and an index.ts that loads the rest when run', () => {
    for (const client of CLIENTS) {
      const folder = path.join(here, client.name);
      const sources = readdirSync(folder)
        .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
        .sort();
      expect(sources, client.name).toEqual([
        'args.ts',
        'config.ts',
        'index.ts',
        'launch.ts',
        'setup.ts',
      ]);
      // The commands are declared from index.ts at every start: it imports no code but its own
      // args.ts (launch.ts and setup.ts load the gateway's, which costs a command a second).
      const imports = [
        ...readFileSync(path.join(folder, 'index.ts'), 'utf8').matchAll(
          /^import (type )?.* from '(.*)';$/gm,
        ),
      ];
      for (const [, typeOnly, from] of imports) {
        expect(
          typeOnly !== undefined || from === './args.js' || from === '../client-adapter.js',
          `${client.name}: ${from}`,
        ).toBe(true);
      }
    }
  });

  it("how each client's requests reach a gateway's upstreams (which running gateway may carry a run)", () => {
    const reuse = Object.fromEntries(CLIENTS.map((client) => [client.name, client.reuse]));
    expect(reuse).toEqual({
      gemini: { apis: ['gemini', 'vertex', 'codeAssist'] },
      qwen: { namedRoutes: true },
      claude: { apis: ['anthropic'] },
      codex: { namedRoutes: true },
      opencode: { namedRoutes: true },
    });
  });

  it('the binaries, and the packages they come in', () => {
    expect(Object.fromEntries(CLIENTS.map((client) => [client.name, client.binary]))).toEqual({
      gemini: { command: 'gemini', npmPackage: '@google/gemini-cli' },
      qwen: { command: 'qwen', npmPackage: '@qwen-code/qwen-code' },
      claude: { command: 'claude', npmPackage: '@anthropic-ai/claude-code' },
      codex: { command: 'codex', npmPackage: '@openai/codex' },
      opencode: { command: 'opencode', npmPackage: 'opencode-ai' },
    });
  });

  it("qwen's masking settings may live in its own user file; claude's, codex's and opencode's in a toolmask.json of their own; gemini's in gemini's", async () => {
    const own = CLIENTS.filter((client) => 'maskingSettings' in client);
    expect(own.map((client) => client.name)).toEqual(['qwen', 'claude', 'codex', 'opencode']);
    const qwen = clientNamed('qwen')!;
    expect(await qwen.maskingSettings?.ownFile({ HOME: '/home/me' })).toBe(
      '/home/me/.qwen/settings.json',
    );
    expect(await qwen.maskingSettings?.ownFile({ HOME: '/home/me', QWEN_HOME: '/q' })).toBe(
      '/q/settings.json',
    );
  });
  it('which arguments run each client headless (a fault is said on stderr then, issue 35)', () => {
    const headless = (name: string, args: string[]) =>
      clientNamed(name)?.launcher.headless?.(args) === true;
    expect(headless('claude', ['-p', 'hi'])).toBe(true);
    expect(headless('claude', ['--model', 'x', '--print', 'hi'])).toBe(true);
    expect(headless('claude', ['--resume', 'abc'])).toBe(false);
    // After `--`, a word is the prompt's.
    expect(headless('claude', ['--', '-p'])).toBe(false);
    expect(headless('codex', ['exec', 'fix it'])).toBe(true);
    expect(headless('codex', ['-c', 'model="o3"', 'e', 'fix it'])).toBe(true);
    expect(headless('codex', ['fix it'])).toBe(false);
    expect(headless('opencode', ['run', 'hi'])).toBe(true);
    expect(headless('opencode', ['-m', 'anthropic/claude-sonnet-4-5'])).toBe(false);
    expect(headless('gemini', ['--prompt=hi'])).toBe(true);
    // A positional prompt opens gemini's interactive UI in a terminal.
    expect(headless('gemini', ['hi'])).toBe(false);
    expect(headless('qwen', ['-p', 'hi'])).toBe(true);
    expect(headless('qwen', ['-i', 'hi'])).toBe(false);
  });
});
