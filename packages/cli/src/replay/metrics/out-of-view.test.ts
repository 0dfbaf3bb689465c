import { describe, expect, it } from 'vitest';
import { MAX_OUTPUTS_WITH_LINE, outOfView } from './out-of-view.js';
import type { MaskingMoment } from '../masking-moments.js';
import { sessionOf } from '../../test-data/engine-fixtures.js';
import type { Content, Part } from '../types.js';

const toolPart = (id: string, text: string): Part => ({
  functionResponse: { id, name: 'run_shell_command', response: { output: text } },
});
const model = (parts: Part[]): Content => ({ role: 'model', parts });
const call = (id: string, command: string): Content =>
  model([{ functionCall: { id, name: 'run_shell_command', args: { command } } }]);

const read = [
  'def parse_header(line):',
  '    return line.split(":", 1)',
  'FAILED tests/test_io.py::test_header',
  'written by the agent before',
].join('\n');

/**
 * r0 prompt · r1 the output (content 2) · r2 a second output repeating one of its lines (content
 * 4) · r3 · the model quotes every line of the first output, and one it wrote itself earlier.
 */
const session = sessionOf([
  { role: 'user', parts: [{ text: 'fix the parser' }] },
  model([
    { text: 'I will look for: written by the agent before' },
    { functionCall: { id: 'c1', name: 'run_shell_command', args: { command: 'cat io.py' } } },
  ]),
  { role: 'user', parts: [toolPart('c1', read)] },
  call('c2', 'pytest'),
  { role: 'user', parts: [toolPart('c2', 'FAILED tests/test_io.py::test_header\n1 failed')] },
  model([{ text: 'go' }]),
  { role: 'user', parts: [{ text: 'go on' }] },
  model([
    {
      text: 'def parse_header(line): and return line.split(":", 1) and FAILED tests/test_io.py::test_header and written by the agent before',
    },
  ]),
]);

const masked = (contentIndex: number, id: string, request: number, snippet: string) =>
  ({
    request,
    contentIndex,
    partIndex: 0,
    original: session.tasks[0]!.contents[contentIndex]!.parts![0]!,
    masked: toolPart(id, snippet),
  }) satisfies MaskingMoment;

describe('outOfView', () => {
  it('counts a quoted line hidden by the snippet and shown nowhere else in the request', () => {
    const moments = [masked(2, 'c1', 2, '<tool_output_masked>def parse_header(line):</...>')];
    expect(outOfView(session, moments)).toEqual({
      outputsMasked: 1,
      // The agent's own line is not counted; three are.
      linesQuoted: 3,
      linesVisible: 1,
      // The FAILED line is in view in the pytest output, sent whole at request 2.
      linesOutOfView: 1,
    });
  });

  it('counts a line as out of view once the other output that showed it is masked too', () => {
    const moments = [
      masked(4, 'c2', 3, '<tool_output_masked>1 failed</...>'),
      masked(2, 'c1', 3, '<tool_output_masked>def parse_header(line):</...>'),
    ];
    const counts = outOfView(session, moments);
    expect(counts.outputsMasked).toBe(2);
    // c1: "return line.split" and the FAILED line (c2's snippet no longer shows it); c2: FAILED.
    expect(counts.linesOutOfView).toBe(3);
  });

  it(`skips lines found in more than ${MAX_OUTPUTS_WITH_LINE} outputs, and outputs left whole`, () => {
    const banner = '=== test session starts ===';
    const repeated = sessionOf([
      { role: 'user', parts: [{ text: 'x' }] },
      call('a', 'one'),
      { role: 'user', parts: [toolPart('a', banner)] },
      call('b', 'two'),
      { role: 'user', parts: [toolPart('b', banner)] },
      call('c', 'three'),
      { role: 'user', parts: [toolPart('c', banner)] },
      model([{ text: banner }]),
    ]);
    const original = repeated.tasks[0]!.contents[2]!.parts![0]!;
    const moment = { request: 3, contentIndex: 2, partIndex: 0, original };
    expect(outOfView(repeated, [{ ...moment, masked: toolPart('a', 'x') }]).linesQuoted).toBe(0);
    expect(outOfView(repeated, [{ ...moment, masked: original }]).outputsMasked).toBe(0);
  });

  it('counts a quote by a later task of a chain only across tasks, and names the line', () => {
    const chained = sessionOf(
      [
        { role: 'user', parts: [{ text: 'task one' }] },
        call('a', 'cat setup.cfg'),
        { role: 'user', parts: [toolPart('a', 'install_requires = numpy>=1.21')] },
        model([{ text: 'done' }]),
      ],
      [
        { role: 'user', parts: [{ text: 'task two' }] },
        model([{ text: 'I see install_requires = numpy>=1.21 here' }]),
      ],
    );
    const original = chained.tasks[0]!.contents[2]!.parts![0]!;
    const moment = {
      request: 2,
      contentIndex: 2,
      partIndex: 0,
      original,
      masked: toolPart('a', '-'),
    };
    expect(outOfView(chained, [moment]).linesQuoted).toBe(0);
    const found: string[] = [];
    const across = outOfView(chained, [moment], undefined, {
      acrossTasks: true,
      onOutOfView: (line) => found.push(line),
    });
    expect(across).toMatchObject({ linesQuoted: 1, linesOutOfView: 1 });
    expect(found).toEqual(['install_requires = numpy>=1.21']);
  });
});
