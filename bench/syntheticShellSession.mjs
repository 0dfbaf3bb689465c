/**
 * A made-up coding-agent session of shell calls (gemini `contents`), deterministic: listings,
 * whole and partial source reads, searches, tracebacks, test runs, diffs, here-documents and
 * `find`s, as a mini-swe-agent run makes them. bench/coldPass.mjs `--warm-up synthetic` sends it
 * once, whole, to the fresh gateway before the chains, to measure what a warm-up at gateway start
 * (the JIT compiling the pass's shell paths on other text) would take off a first cold pass.
 */
const WORDS = ['table', 'unit', 'parser', 'reader', 'column', 'format'];
const MORE = ['header', 'value', 'scale', 'index', 'record', 'field'];

/** `tasks` tasks of `turns` shell calls each. */
export function syntheticShellSession(tasks = 6, turns = 40) {
  let seed = 7;
  const pick = (n) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
  const words = [...WORDS, ...MORE];
  const word = () => words[pick(words.length)];
  const ident = () => `${word()}_${word()}`;
  const title = (text) => text[0].toUpperCase() + text.slice(1);
  const className = () => title(word()) + title(word());
  const file = () => `pkg/${word()}/${ident()}.py`;
  const source = (count) =>
    Array.from({ length: count }, (_, line) =>
      line % 12 === 0
        ? `class ${className()}(Base):`
        : line % 12 === 1
          ? `    def ${ident()}(self, ${ident()}, ${ident()}=None):`
          : line % 12 === 2
            ? `        """Return the ${word()} of the ${word()}."""`
            : `        ${ident()} = self.${ident()}(${ident()}, ${pick(100)})  # ${word()}`,
    ).join('\n');
  const lines = (count, line) => Array.from({ length: count }, line).join('\n');
  const testRun = () => {
    const test = `tests/test_${ident()}.py`;
    return [
      `python -m pytest ${test} -x -q`,
      `============================= test session starts ==============================\ncollected ${20 + pick(80)} items\n\n${test} ${'.'.repeat(30 + pick(40))}F\n\n=================================== FAILURES ===================================\n____________________________ test_${ident()} ____________________________\n${source(30)}\nE       AssertionError: assert ${pick(99)} == ${pick(99)}\n\n${test}:${pick(500)}: AssertionError\n=========================== short test summary info ============================\nFAILED ${test}::test_${ident()} - AssertionError\n1 failed, ${10 + pick(60)} passed in ${pick(9)}.${pick(99)}s`,
    ];
  };
  const diff = () => {
    const path = file();
    const body = source(12)
      .split('\n')
      .map((line, index) => ['-', '+', ' ', ' '][index % 4] + line)
      .join('\n');
    return [
      'git diff',
      `diff --git a/${path} b/${path}\nindex 1a2b3c4..5d6e7f8 100644\n--- a/${path}\n+++ b/${path}\n@@ -${pick(300)},12 +${pick(300)},13 @@\n${body}`,
    ];
  };
  const kinds = [
    () => [`ls pkg/${word()}`, lines(20 + pick(30), () => `${ident()}.py`)],
    () => [`cat ${file()}`, source(80 + pick(200))],
    () => {
      const from = 1 + pick(300);
      return [`sed -n '${from},${from + 60}p' ${file()}`, source(60)];
    },
    () => {
      const name = ident();
      const hit = () => `${file()}:${1 + pick(900)}:        ${name} = self.${ident()}(${pick(9)})`;
      return [`grep -rn "${name}" pkg`, lines(10 + pick(40), hit)];
    },
    () => {
      const frame = () =>
        `  File "${file()}", line ${1 + pick(900)}, in ${ident()}\n    ${ident()}(${ident()})`;
      const trace = `Traceback (most recent call last):\n${lines(6 + pick(8), frame)}`;
      return ['python reproduce_issue.py', `${trace}\nValueError: bad ${word()} '${ident()}'`];
    },
    testRun,
    diff,
    () => [`cat <<'EOF' > ${file()}\n${source(20)}\nEOF`, '(empty)'],
    () => [`find . -name "*${word()}*.py"`, lines(15 + pick(40), () => `./${file()}`)],
  ];
  const contents = [];
  for (let task = 0; task < tasks; task++) {
    const prompt = `<pr_description>\nTask ${task}: the \`${ident()}\` of \`${className()}\` is wrong when \`${ident()}\` is set.\n</pr_description>`;
    contents.push({ role: 'user', parts: [{ text: prompt }] });
    for (let turn = 0; turn < turns; turn++) {
      const [command, output] = kinds[pick(kinds.length)]();
      const id = `warm-up-${task}#${turn}`;
      const thought = `THOUGHT: I will look at \`${ident()}\` in ${file()} next, since ${className()}.${ident()} calls it.`;
      const call = { id, name: 'run_shell_command', args: { command } };
      const response = { id, name: 'run_shell_command', response: { output: `Output: ${output}` } };
      contents.push({ role: 'model', parts: [{ text: thought }, { functionCall: call }] });
      contents.push({ role: 'user', parts: [{ functionResponse: response }] });
    }
  }
  return contents;
}
