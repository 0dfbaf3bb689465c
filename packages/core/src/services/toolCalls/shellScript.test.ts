import { describe, expect, it } from 'vitest';
import { parseShellScript, type ShellScript } from './shellScript.js';

/** Each pipeline's commands as their words' texts, `*` marking a dynamic word. */
function words(script: string): string[][][] {
  const parsed = parseShellScript(script) as ShellScript;
  return parsed.pipelines.map((pipeline) =>
    pipeline.map((command) => command.words.map((word) => word.text + (word.dynamic ? '*' : ''))),
  );
}

describe('parseShellScript, the scanner', () => {
  it('undoes quotes and escapes, a plain run of a word taken whole', () => {
    expect(words(`cat 'a b.py' "c d.py" e\\ f.py g'h'"i"j`)).toEqual([
      [['cat', 'a b.py', 'c d.py', 'e f.py', 'ghij']],
    ]);
    expect(words(`echo "a\\"b" "c\\\\d" "e\\xf" 'g\\h'`)).toEqual([
      [['echo', 'a"b', 'c\\d', 'e\\xf', 'g\\h']],
    ]);
    expect(words('cat a.py\\\n b.py "c\\\nd"')).toEqual([[['cat', 'a.py', 'b.py', 'cd']]]);
  });

  it('adds nothing for a backslash that ends the script inside double quotes', () => {
    // It added the text "undefined" before (a character read past the end).
    expect(words('cat "a.py\\')).toEqual([[['cat', 'a.py']]]);
    expect(words('cat a.py\\')).toEqual([[['cat', 'a.py']]]);
  });

  it('marks expansions, globs and a leading ~ dynamic, and keeps them out of the text', () => {
    expect(words('cat $F "${D}/a.py" `pwd`/b ~/c.py d~ *.py a?.py [ab].py "*.py"')).toEqual([
      [['cat', '*', '/a.py*', '/b*', '~/c.py*', 'd~', '*.py*', 'a?.py*', '[ab].py*', '*.py']],
    ]);
    expect(words('echo "$(cat "a b")" x')).toEqual([[['echo', '*', 'x']]]);
    expect(words("echo $(printf ')') y")).toEqual([[['echo', '*', 'y']]]);
  });

  it('splits pipelines at && || ; & and new lines, commands at | and |&', () => {
    expect(words('cd /w && cat a | grep x; ls & b || c\nd |& e;; f')).toEqual([
      [['cd', '/w']],
      [
        ['cat', 'a'],
        ['grep', 'x'],
      ],
      [['ls']],
      [['b']],
      [['c']],
      [['d'], ['e']],
      [['f']],
    ]);
  });

  it('skips comments, not a # inside a word', () => {
    expect(words('cat a#b # cat c\n# whole line\nls')).toEqual([[['cat', 'a#b']], [['ls']]]);
  });

  it('reads redirections with their descriptors and heredoc bodies', () => {
    const parsed = parseShellScript(
      "cat <<'EOF' > out.py 2>&1\nx = 1\n  EOF\nEOF\nsed -n 1p <<-END\n\tbody\n\tEND\ncat 1234>f",
    ) as ShellScript;
    const [first, second, third] = parsed.pipelines;
    expect(first?.[0]?.redirects).toEqual([
      { op: '<<', target: { text: 'EOF', dynamic: false }, body: 'x = 1\n  EOF' },
      { op: '>', target: { text: 'out.py', dynamic: false } },
      { op: '>&', fd: 2, target: { text: '1', dynamic: false } },
    ]);
    expect(second?.[0]?.redirects).toEqual([
      { op: '<<-', target: { text: 'END', dynamic: false }, body: '\tbody' },
    ]);
    expect(third?.[0]?.words.map((word) => word.text)).toEqual(['cat', '1234']);
    expect(third?.[0]?.redirects.map((redirect) => redirect.op)).toEqual(['>']);
    const operators = parseShellScript('a &>f &>>g <<<h <&3 <>i >>j >|k <l')?.pipelines[0]?.[0];
    expect(operators?.redirects.map((redirect) => redirect.op)).toEqual([
      '&>',
      '&>>',
      '<<<',
      '<&',
      '<>',
      '>>',
      '>|',
      '<',
    ]);
  });

  it('calls subshells, braces and control flow complex', () => {
    expect(parseShellScript('(cd a && cat b)')?.complex).toBe(true);
    expect(parseShellScript('{ cat a; }')?.complex).toBe(true);
    expect(parseShellScript('for f in a; do cat $f; done')?.complex).toBe(true);
    expect(parseShellScript('echo if; cat "if"')?.complex).toBe(false);
  });

  it('keeps characters beyond ASCII in words', () => {
    expect(words('cat données/é.py "ü x" \u{1F600}.txt')).toEqual([
      [['cat', 'données/é.py', 'ü x', '\u{1F600}.txt']],
    ]);
  });
});
