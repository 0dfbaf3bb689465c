/**
 * The shell parser's time bounds, on the wall clock (the e2e lane: a loaded machine must not fail
 * the unit lane). callFacts.test.ts checks the same inputs without timing them: a long command is
 * not parsed, and the longest script it takes is parsed whatever its quoting.
 */
import { describe, expect, it } from 'vitest';
import { callFacts } from './callFacts.js';
import { MAX_SHELL_SCRIPT_CHARS, parseShellScript } from './shellScript.js';

describe('callFacts and the shell parser answer in bounded time on model-chosen input', () => {
  it('does not parse a command longer than a few KB, and answers in bounded time', () => {
    const huge = `cat a.py && ${'echo "x\\" $(y) `z`" '.repeat(60_000)}`; // ~1 MB
    expect(huge.length).toBeGreaterThan(1_000_000);
    const started = performance.now();
    const facts = callFacts('run_shell_command', { command: huge });
    expect(performance.now() - started).toBeLessThan(200);
    expect(facts).toMatchObject({ reads: [], writes: [] });
    expect(facts.rerunKey).toMatch(/^#[0-9a-f]{64}$/);
    expect(parseShellScript(huge)).toBeUndefined();
  });

  it('parses the longest script it takes, however it is quoted, in linear time', () => {
    const shapes = ['"'.repeat(4), "'", '$(', '\\', '<<EOF\n', '${', '`', '|', '(', 'a=b '];
    for (const shape of shapes) {
      const script = shape.repeat(Math.floor(MAX_SHELL_SCRIPT_CHARS / shape.length));
      const started = performance.now();
      parseShellScript(script);
      callFacts('run_shell_command', { command: script });
      expect(performance.now() - started, JSON.stringify(shape)).toBeLessThan(100);
    }
  });
});
