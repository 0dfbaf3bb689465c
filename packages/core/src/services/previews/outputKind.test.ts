import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { TEXT_SAMPLE_UNITS, classifyOutput, mainStage } from './outputKind.js';

const shell = (command: string, text = 'Output: x') =>
  classifyOutput('run_shell_command', { command }, text);

describe('classifyOutput', () => {
  it('reads the kind from the command the call ran', () => {
    expect(shell('nl -ba django/db/models/deletion.py | sed -n 200,250p')).toBe('source read');
    expect(shell("sed -n '480,490p' tests/ordering/tests.py")).toBe('source read');
    expect(shell('cat setup.py')).toBe('source read');
    expect(shell('python setup.py install')).toBe('test or build run');
    expect(shell('grep -n "def delete" django/db/models/deletion.py')).toBe('search');
    expect(shell('cat f.py | grep -n x')).toBe('search');
    expect(shell('git grep -n TODO')).toBe('search');
    expect(shell('python3 tests/runtests.py delete')).toBe('test or build run');
    expect(shell('cd /testbed && python -m pytest -x tests/')).toBe('test or build run');
    expect(shell('python reproduce_issue.py')).toBe('log');
    expect(shell('git diff')).toBe('diff');
    expect(shell('ls -R')).toBe('other');
  });

  it("reads Codex's exec_command, whose command is `cmd` (issue 35)", () => {
    expect(classifyOutput('exec_command', { cmd: 'grep -rn TODO src' }, 'x')).toBe('search');
    expect(classifyOutput('exec_command', { cmd: 'npm test' }, 'x')).toBe('test or build run');
  });

  it('skips set-up stages and file writes to find the stage that prints', () => {
    expect(shell('cd /testbed && export X=1 && cat a.py')).toBe('source read');
    expect(shell("cat <<'EOF' > fix.py\nimport os\nEOF\npython3 fix.py")).toBe('log');
    expect(shell("sed -i 's/a/b/' f.py")).toBe('other');
    expect(shell('cat <<EOF > f.py\nprint(1)\nEOF')).toBe('other');
    expect(mainStage('time timeout 10 FOO=1 grep -r x .').program).toBe('grep');
  });

  it('reads the kind from the text when the command does not tell', () => {
    const diff = 'diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b';
    expect(classifyOutput('submit', {}, diff)).toBe('diff');
    expect(shell('./run.sh', '===== 1 failed, 2 passed in 0.1s =====')).toBe('test or build run');
    expect(shell('./run.sh', 'Ran 12 tests in 0.3s\n\nOK')).toBe('test or build run');
  });

  it('finds a summary or a diff after any line terminator, as the expressions do', () => {
    for (const end of ['\n', '\r', '\u2028', '\u2029']) {
      expect(shell('./run.sh', `log${end}=== 3 passed in 1s ===`)).toBe('test or build run');
      expect(shell('./run.sh', `log${end}Ran 2 tests in 0.1s`)).toBe('test or build run');
      expect(classifyOutput('submit', {}, `x${end}diff --git a/x b/x`)).toBe('diff');
    }
    expect(shell('./run.sh', 'log === 3 passed in 1s ===')).toBe('log');
    expect(classifyOutput('submit', {}, '--- a\r+++ b\n@@ -1 +1 @@')).toBe('other');
    expect(classifyOutput('submit', {}, '--- a\n+++ b\n@@ -1 +1 @@')).toBe('diff');
  });

  it('reads the kind from the tool name when there is no command', () => {
    expect(classifyOutput('read_file', { file_path: 'a.py' }, 'x')).toBe('source read');
    expect(classifyOutput('search_file_content', { pattern: 'x' }, 'a.py:1:x')).toBe('search');
    expect(classifyOutput('list_directory', { dir_path: '.' }, 'a\nb')).toBe('other');
    expect(classifyOutput('read_file', undefined, 'x')).toBe('source read');
    expect(classifyOutput('Read', { file_path: '/w/a.py' }, '     1\tx')).toBe('source read');
    expect(classifyOutput('Grep', { pattern: 'x' }, 'a.py:1:x')).toBe('search');
  });

  it('looks for text patterns in the head and tail of a giant output only', () => {
    const filler = 'x\n'.repeat(TEXT_SAMPLE_UNITS);
    const middle = `${filler}===== 1 failed in 0.1s =====\n${filler}`;
    expect(shell('./run.sh', middle)).toBe('log');
    expect(shell('./run.sh', `${filler}${filler}===== 1 failed in 0.1s =====`)).toBe(
      'test or build run',
    );
  });
});

/** mainStage as it was before it read each stage's first word alone (issue 30): the reference. */
function referenceMainStage(command: string) {
  const wordsOf = (stage: string) => {
    const words = stage.trim().split(/\s+/).filter(Boolean);
    while (words.length > 0) {
      const first = words[0] as string;
      if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(first) || first === 'time') words.shift();
      else if (first === 'timeout') words.splice(0, 2);
      else break;
    }
    return words;
  };
  const programName = (word: string | undefined) => (word ?? '').split('/').pop() ?? '';
  const setup = new Set(['cd', 'export', 'source', 'set', 'pushd', 'popd', 'true', ':']);
  const fileOperations = new Set(['rm', 'mkdir', 'mv', 'cp', 'touch', 'chmod', 'ln']);
  const writesOnly = (stage: string) => {
    const first = stage.split(/\|(?!\|)/)[0] ?? '';
    if (fileOperations.has(programName(wordsOf(first)[0]))) return true;
    return (
      /(^|[^2&-])>>?\s*(?!\/dev\/null)[^&\s]/.test(first) || /^sed\s(?:.*\s)?-i/.test(first.trim())
    );
  };
  const stages = command
    .replace(/(<<-?\s*['"]?(\w+)['"]?[^\n]*)\n[\s\S]*?\n\s*\2(\n|$)/g, '$1\n')
    .split(/&&|\|\||;|\n/)
    .map((stage) => stage.trim())
    .filter(Boolean);
  const working = stages.filter((stage) => !setup.has(programName(wordsOf(stage)[0])));
  const prints = working.filter(
    (stage) => !writesOnly(stage) && programName(wordsOf(stage)[0]) !== 'echo',
  );
  const chosen = prints[0] ?? working[0] ?? '';
  const pipeline = chosen.split(/\|(?!\|)/).map((part) => part.trim());
  const first = wordsOf(pipeline[0] ?? '')[0] ?? '';
  return { stage: chosen, pipeline, program: programName(first), command: first };
}

describe('mainStage, each stage read once (issue 30)', () => {
  const words = [
    'cd',
    '/testbed',
    'export',
    'X=1',
    'FOO=bar',
    'time',
    'timeout',
    '5',
    'echo',
    'hi',
    'cat',
    'a.py',
    'python',
    './run.sh',
    'bin/test',
    'sed',
    '-i',
    's/a/b/',
    'rm',
    '-rf',
    'x',
    '>',
    'out',
    '2>&1',
    '>/dev/null',
    'grep',
    '-n',
    'def',
    '|',
    '||',
    '&&',
    ';',
    '\n',
    "<<'EOF'",
    'EOF',
    '  ',
    '\t',
    'git',
    'diff',
    'true',
    ':',
  ];
  it('finds the stage the reference finds, whatever the command (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...words), { maxLength: 24 }), (picked) => {
        const command = picked.join(' ');
        expect(mainStage(command)).toEqual(referenceMainStage(command));
      }),
      { numRuns: 2000 },
    );
  });

  it('skips a trailing `timeout` and its duration as before', () => {
    for (const command of [
      'timeout',
      'timeout 5',
      'FOO=1 time timeout 5 python x.py',
      'cd d && time',
    ]) {
      expect(mainStage(command)).toEqual(referenceMainStage(command));
    }
  });
});
