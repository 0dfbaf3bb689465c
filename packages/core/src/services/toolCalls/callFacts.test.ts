import { describe, expect, it } from 'vitest';
import { callFacts } from './callFacts.js';
import { MAX_SHELL_SCRIPT_CHARS, parseShellScript } from './shellScript.js';

describe('callFacts and the shell parser stay bounded on model-chosen input', () => {
  it('does not parse a command longer than a few KB (timed in callFacts.reliability.test.ts)', () => {
    const huge = `cat a.py && ${'echo "x\\" $(y) `z`" '.repeat(60_000)}`; // ~1 MB
    expect(huge.length).toBeGreaterThan(1_000_000);
    const facts = callFacts('run_shell_command', { command: huge });
    expect(facts).toMatchObject({ reads: [], writes: [] });
    expect(facts.rerunKey).toMatch(/^#[0-9a-f]{64}$/);
    expect(parseShellScript(huge)).toBeUndefined();
  });

  it('parses the longest script it takes, however it is quoted (timed in the reliability test)', () => {
    const shapes = ['"'.repeat(4), "'", '$(', '\\', '<<EOF\n', '${', '`', '|', '(', 'a=b '];
    for (const shape of shapes) {
      const script = shape.repeat(Math.floor(MAX_SHELL_SCRIPT_CHARS / shape.length));
      expect(parseShellScript(script), JSON.stringify(shape)).toBeDefined();
      expect(callFacts('run_shell_command', { command: script }).rerunKey).not.toBe('');
    }
  });

  it('tells sed and grep reads from what they are not', () => {
    const reads = (command: string) => callFacts('run_shell_command', { command }).reads;
    expect(reads("sed -n '10,80p' a.py")).toEqual([
      { path: 'a.py', first: 10, last: 80, partial: false },
    ]);
    expect(reads("sed -n '/def a/,/def b/p' a.py")).toEqual([
      { path: 'a.py', first: 1, last: Infinity, partial: true },
    ]);
    expect(reads("sed 's/a/b/' a.py")).toEqual([]);
    expect(reads("sed -n 's/a/b/p' a.py")).toEqual([]);
    expect(reads('grep -l x a.py')).toEqual([]);
    expect(reads('grep -n x a.py b.py')).toEqual([]);
    expect(reads('tail -n +20 a.py')).toEqual([
      { path: 'a.py', first: 20, last: Infinity, partial: false },
    ]);
    expect(reads('cat a.py | wc -l')).toEqual([]);
    expect(reads('cat a.py > b.py')).toEqual([]);
    expect(callFacts('run_shell_command', { command: 'cat a.py > b.py' }).writes).toEqual(['b.py']);
    expect(reads('for f in a.py; do cat $f; done')).toEqual([]);
  });

  it('leaves out the reads or writes not wanted, the rest as the full facts', () => {
    const command = "cd /w && sed -n '1,5p' a.py > b.py && cat c.py";
    const full = callFacts('run_shell_command', { command });
    expect(full.reads).toEqual([{ path: '/w/c.py', first: 1, last: Infinity, partial: false }]);
    expect(full.writes).toEqual(['/w/b.py']);
    const wanted = (reads: boolean, writes: boolean) =>
      callFacts('run_shell_command', { command }, { reads, writes });
    expect(wanted(true, false)).toEqual({ ...full, writes: [] });
    expect(wanted(false, true)).toEqual({ ...full, reads: [] });
    expect(wanted(false, false)).toEqual({ rerunKey: full.rerunKey, reads: [], writes: [] });
    const edit = { file_path: '/w/a.py', old_string: 'a', new_string: 'b' };
    expect(callFacts('replace', edit, { reads: true, writes: false }).writes).toEqual([]);
    expect(
      callFacts('read_file', { file_path: 'a.py' }, { reads: false, writes: true }).reads,
    ).toEqual([]);
  });
});
