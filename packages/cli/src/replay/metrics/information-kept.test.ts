import { describe, expect, it } from 'vitest';
import { informationKept, keptShare, keptShareOfAll } from './information-kept.js';
import { candidateLines, lineKey, quotableText } from './quoted-lines.js';
import type { MaskingMoment } from '../masking-moments.js';
import { sessionOf } from '../../test-data/engine-fixtures.js';
import type { Content, Part } from '../types.js';

const output = [
  'def parse_header(line):',
  '    return line.split(":", 1)',
  'short',
  '    return None  # nothing to do',
  'FAILED tests/test_io.py::test_header',
].join('\n');

const toolPart = (text: string): Part => ({
  functionResponse: { id: 'c1', name: 'run_shell_command', response: { output: text } },
});
const snippetPart = (text: string): Part => ({
  functionResponse: { id: 'c1', name: 'run_shell_command', response: { output: text } },
});
const model = (parts: Part[]): Content => ({ role: 'model', parts });

/**
 * r0 prompt · model calls · r1 the output (content 2) · model answers · r2 · model quotes two
 * lines, one in its text and one in an edit's arguments. A second task quotes a third line.
 */
const session = sessionOf(
  [
    { role: 'user', parts: [{ text: 'fix the parser' }] },
    model([
      { functionCall: { id: 'c1', name: 'run_shell_command', args: { command: 'cat io.py' } } },
    ]),
    { role: 'user', parts: [toolPart(output)] },
    model([{ text: 'Reading `def parse_header(line):` next.' }]),
    { role: 'user', parts: [{ text: 'go on' }] },
    model([
      { text: 'The test FAILED tests/test_io.py::test_header above.' },
      {
        functionCall: {
          id: 'c2',
          name: 'replace',
          args: { old_string: '    return line.split(":", 1)', new_string: 'x' },
        },
      },
    ]),
  ],
  [
    { role: 'user', parts: [{ text: 'next task' }] },
    model([{ text: 'return None  # nothing to do' }]),
  ],
);

const maskedAt = (request: number, snippet: string): MaskingMoment => ({
  request,
  contentIndex: 2,
  partIndex: 0,
  original: toolPart(output),
  masked: snippetPart(snippet),
});

describe('quoted lines', () => {
  it('takes trimmed lines of 12+ characters, each once', () => {
    expect(candidateLines(`${output}\n${output}`)).toEqual([
      'def parse_header(line):',
      'return line.split(":", 1)',
      'return None  # nothing to do',
      'FAILED tests/test_io.py::test_header',
    ]);
  });

  it('reads model text and every string in call arguments', () => {
    const text = quotableText(
      model([{ text: 'a' }, { functionCall: { name: 'f', args: { x: ['b', { y: 'c' }] } } }]),
    );
    expect(text.split('\n')).toEqual(['a', 'b', 'c']);
  });
});

describe('informationKept (hand-made session)', () => {
  it('counts the lines quoted after the masking and those the snippet still shows', () => {
    // Masked at r1 (the request that sends content 2): three lines of its task are quoted later
    // (contents 3 and 5); the other task's quote of a fourth line does not count.
    const kept = informationKept(session, [
      maskedAt(1, '<tool_output_masked>\ndef parse_header(line):\n[... 4 of 5 lines omitted ...]'),
    ]);
    expect(kept).toMatchObject({
      outputsMasked: 1,
      outputsQuotedLater: 1,
      linesQuotedLater: 3,
      linesVisible: 1,
    });
    expect(keptShare(kept)).toBeCloseTo(1 / 3);
  });

  it('ignores quotes made before the masking', () => {
    // Masked at r2 (content 4): only content 5 is later; it quotes two lines, both hidden.
    const kept = informationKept(session, [maskedAt(2, 'nothing of it')]);
    expect(kept).toMatchObject({ linesQuotedLater: 2, linesVisible: 0 });
    expect(kept.snippetBytes).toBe('nothing of it'.length);
  });

  it('sees a line through JSON escapes', () => {
    const kept = informationKept(session, [
      maskedAt(2, '{\\n  "x": "    return line.split(\\":\\", 1)"'),
    ]);
    expect(kept.linesVisible).toBe(1);
  });

  it('counts an output left whole apart: all of it visible, at its full size', () => {
    const original = toolPart(output);
    const whole: MaskingMoment = { ...maskedAt(2, ''), original, masked: original };
    const kept = informationKept(session, [whole]);
    expect(kept).toMatchObject({
      outputsMasked: 0,
      outputsWhole: 1,
      linesQuotedLaterWhole: 2,
      wholeBytes: output.length,
    });
    expect(keptShare(kept)).toBeUndefined();
    expect(keptShareOfAll(kept)).toBe(1);
  });
});

describe('line-number prefixes', () => {
  it('strips the prefixes it recognises, one per line, and nothing else', () => {
    expect(lineKey('     12\tdef parse_header(line):')).toBe('def parse_header(line):');
    expect(lineKey('12:    return line.split(":", 1)')).toBe('return line.split(":", 1)');
    expect(lineKey('  7: import os.path as p')).toBe('import os.path as p');
    expect(lineKey('  7 | import os.path as p')).toBe('import os.path as p');
    expect(lineKey('12\t34\tvalues in a table')).toBe('34\tvalues in a table');
    expect(lineKey('src/io.py:12:def parse_header(line):')).toBe(
      'src/io.py:12:def parse_header(line):',
    );
    expect(lineKey('12345678: too many digits')).toBe('12345678: too many digits');
    expect(lineKey('3 tests passed in 0.2s')).toBe('3 tests passed in 0.2s');
  });

  it('takes a numbered listing by its content, with the 12-character floor after stripping', () => {
    const listing =
      '     1\tdef parse_header(line):\n     2\t    x = 1\n     3\t    return None  # done';
    expect(candidateLines(listing)).toEqual(['def parse_header(line):', 'return None  # done']);
  });

  it('strips the prefixes of quoted text too, at every line start', () => {
    const text = quotableText(
      model([{ text: 'See\n  41: def parse_header(line):\n42\treturn None  # done' }]),
    );
    expect(text).toBe('See\ndef parse_header(line):\nreturn None  # done');
  });

  it('counts a line of a numbered read that the agent quotes without its number', () => {
    const numbered = output
      .split('\n')
      .map((line, index) => `${String(index + 1).padStart(6)}\t${line}`)
      .join('\n');
    const original = toolPart(numbered);
    const kept = informationKept(session, [
      {
        ...maskedAt(1, '     1\tdef parse_header(line):\n[... 4 of 5 lines omitted ...]'),
        original,
      },
    ]);
    expect(kept).toMatchObject({ linesQuotedLater: 3, linesVisible: 1 });
  });
});
