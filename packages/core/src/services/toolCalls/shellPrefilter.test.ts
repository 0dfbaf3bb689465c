import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { callFacts } from './callFacts.js';
import { ALL_FACTS } from './fileRanges.js';
import { mayReadOrWrite, READING_PROGRAMS, WRITING_PROGRAMS } from './shellPrefilter.js';

/** The facts the full walk finds: an argv `bash -lc SCRIPT` is parsed without the prefilter. */
const walked = (script: string) => callFacts('shell', { command: ['bash', '-lc', script] });

const word = fc.constantFrom(
  ...READING_PROGRAMS,
  ...WRITING_PROGRAMS,
  'python',
  'ls',
  'echo',
  'cd',
  'mkdir',
  'xcat',
  'cat=1',
  'X=1',
  'timeout',
  'env',
  '/usr/bin/cat',
  './tail',
  'a.py',
  'src/b.py',
  '/w/c.py',
  '-n',
  '-i',
  '-ba',
  '1,5p',
  '+3',
  '--',
  'checkout',
  '*.py',
  '~/x',
  'é',
);
const separator = fc.constantFrom(
  ' ',
  '  ',
  '\t',
  ' && ',
  ' | ',
  '; ',
  '\n',
  ' || ',
  ' & ',
  '>',
  ' > ',
  ' 2>&1 ',
  '=',
  '#',
  '(',
  '\u000b',
);
const plainScript = fc
  .array(fc.tuple(word, separator), { minLength: 1, maxLength: 8 })
  .map((pieces) => pieces.map(([text, between]) => text + between).join(''));

describe('mayReadOrWrite', () => {
  it('answers no only for scripts whose walk finds no read and no write (property)', () => {
    fc.assert(
      fc.property(plainScript, (script) => {
        const facts = walked(script);
        if (!mayReadOrWrite(script, { reads: true, writes: false }))
          expect(facts.reads).toEqual([]);
        if (!mayReadOrWrite(script, { reads: false, writes: true }))
          expect(facts.writes).toEqual([]);
      }),
      { numRuns: 5000 },
    );
  });

  it('tells the scripts it need not parse from those it must', () => {
    const may = (script: string) => mayReadOrWrite(script, ALL_FACTS);
    expect(may('python reproduce.py')).toBe(false);
    expect(may('cd /testbed && pytest -q tests/test_a.py')).toBe(false);
    expect(may('ls -la src/concat.py')).toBe(false);
    expect(may('cat a.py')).toBe(true);
    expect(may('/usr/bin/cat a.py')).toBe(true);
    expect(may('X=1 timeout 5 nl a.py')).toBe(true);
    expect(may('python x.py > out.txt')).toBe(true);
    expect(may("python -c 'print(1)'")).toBe(true);
    expect(may('c\\at a.py')).toBe(true);
    expect(mayReadOrWrite('rm a.py', { reads: true, writes: false })).toBe(false);
    expect(mayReadOrWrite('cat a.py', { reads: false, writes: false })).toBe(false);
    expect(callFacts('run_shell_command', { command: 'ls src && python x.py' }).reads).toEqual([]);
  });
});
