import type { Part } from '@google/gemini-cli-core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  estimateFunctionResponseTokens,
  estimateTextTokens,
  estimateTokenCountSync,
  TOKEN_MODEL,
} from './tokenCalculation.js';
import { SAMPLED_ABOVE_UNITS } from './tokens/tokenTally.js';

/** Gemma 3 token counts (no BOS) of strings written for this test, measured with the tokenizer. */
const GEMMA3_COUNTS: ReadonlyArray<[string, number]> = [
  ['Hello, my dog is cute', 6],
  [
    'The build finished without errors. All 42 tests passed in 3.2 seconds, and the coverage ' +
      'report was written to coverage/index.html.',
    32,
  ],
  [
    'def parse_config(path):\n    with open(path) as f:\n        data = json.load(f)\n' +
      '    return {k: v for k, v in data.items() if not k.startswith("_")}\n',
    51,
  ],
  [
    JSON.stringify({
      output:
        'Output: total 24\ndrwxr-xr-x  5 user staff  160 Jan  3 10:12 .\n' +
        '-rw-r--r--  1 user staff 1204 Jan  3 10:12 README.md\n' +
        '-rw-r--r--  1 user staff  388 Jan  3 10:12 package.json\n',
    }),
    96,
  ],
  [
    JSON.stringify({
      output:
        'Traceback (most recent call last):\n  File "/repo/app/main.py", line 17, in <module>\n' +
        '    main()\n  File "/repo/app/main.py", line 12, in main\n' +
        "    raise ValueError(\"bad input: 'x'\")\nValueError: bad input: 'x'\nExit Code: 1",
    }),
    88,
  ],
];

const PROSE =
  'Token estimates decide when old tool outputs are masked, so they should be close to what ' +
  'the model really sees. This paragraph is ordinary English prose with a few numbers (12, 345) ' +
  'and punctuation; nothing unusual.';

const image = (mimeType = 'image/png'): Part => ({ inlineData: { mimeType, data: 'AAAA' } });

describe('estimateTextTokens', () => {
  it('is 0 for an empty string', () => {
    expect(estimateTextTokens('')).toBe(0);
  });

  it('matches Gemma 3 counts of short texts within 15%', () => {
    for (const [text, reference] of GEMMA3_COUNTS) {
      const estimate = estimateTextTokens(text);
      expect(Math.abs(estimate / reference - 1), text).toBeLessThanOrEqual(0.15);
    }
  });

  it('counts English prose at roughly 3.5-5.5 characters per token', () => {
    const tokens = estimateTextTokens(PROSE);
    expect(PROSE.length / tokens).toBeGreaterThan(3.5);
    expect(PROSE.length / tokens).toBeLessThan(5.5);
  });

  it('counts every digit as about one token (Gemma splits numbers into digits)', () => {
    const digits = '31415926535897932384626433832795028841971693993751';
    const tokens = estimateTextTokens(digits);
    expect(tokens).toBeGreaterThanOrEqual(digits.length * 0.9);
    expect(tokens).toBeLessThanOrEqual(digits.length * 1.1);
  });

  it('counts more tokens per character for CJK than for ASCII text', () => {
    const cjk =
      '文件已经成功保存到磁盘上请检查输出结果是否正确我们想知道每个汉字大约需要多少个词元';
    const ascii = PROSE.slice(0, cjk.length);
    expect(estimateTextTokens(cjk) / cjk.length).toBeGreaterThan(
      (1.5 * estimateTextTokens(ascii)) / ascii.length,
    );
    // ... but not more than one token per character (Gemma 3 has a large CJK vocabulary).
    expect(estimateTextTokens(cjk)).toBeLessThanOrEqual(cjk.length);
  });

  it('counts an emoji (surrogate pair) once, not per code unit', () => {
    const one = estimateTextTokens('a 🚀');
    const three = estimateTextTokens('a 🚀🚀🚀');
    expect(three - one).toBeGreaterThanOrEqual(2 * 0.5);
    expect(three - one).toBeLessThanOrEqual(2 * 2);
  });

  it('scales linearly with the length of the text', () => {
    const one = estimateTextTokens(PROSE + '\n');
    const hundred = estimateTextTokens((PROSE + '\n').repeat(100));
    expect(hundred / one).toBeGreaterThan(97);
    expect(hundred / one).toBeLessThan(101);
  });

  it('collapses runs of spaces (indentation) like the tokenizer does', () => {
    const indented = estimateTextTokens('x\n' + ' '.repeat(32) + 'y');
    const plain = estimateTextTokens('x\n y');
    expect(indented - plain).toBeLessThan(3);
  });

  it('handles a 10 MB string (timed in tokenCalculation.reliability.test.ts)', () => {
    const big = (PROSE + '\n').repeat(Math.ceil(10_000_000 / (PROSE.length + 1)));
    const tokens = estimateTextTokens(big);
    expect(tokens).toBeGreaterThan(big.length / 6);
  });
});

describe('giant strings (issue 14, item 4)', () => {
  /** ~12 M code units of varied content: build logs, JSON, CJK, emoji, a base64 blob in the middle. */
  function varied(): string {
    const pieces: string[] = [];
    let size = 0;
    for (let i = 0; size < SAMPLED_ABOVE_UNITS * 1.5; i++) {
      const piece =
        i % 5000 === 2500
          ? 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo'.repeat(3_000)
          : [
              `[${i}] compiling src/module_${i % 97}.ts ... ok (${i % 1000} ms)`,
              JSON.stringify({ id: i, path: `/srv/app/${i}.json`, ok: i % 3 === 0 }),
              `    def handler_${i}(self, request):  # 处理请求 ${i}`,
              `✓ test ${i} passed 🎉`,
            ][i % 4]!;
      pieces.push(piece);
      size += piece.length + 1;
    }
    return pieces.join('\n');
  }

  it('estimates a string above the sampling threshold within 3% of counting every code unit', () => {
    const text = varied();
    // The exact count, piece by piece below the threshold (chunk edges cost a token or two).
    let exact = 0;
    for (let at = 0; at < text.length; at += SAMPLED_ABOVE_UNITS / 4) {
      exact += estimateTextTokens(text.slice(at, at + SAMPLED_ABOVE_UNITS / 4));
    }
    const sampled = estimateTextTokens(text);
    expect(Math.abs(sampled / exact - 1)).toBeLessThan(0.03);
    // Deterministic, and the same for the JSON walk of a response.
    expect(estimateTextTokens(text)).toBe(sampled);
    const response = estimateFunctionResponseTokens({ output: text });
    expect(Math.abs(response / exact - 1)).toBeLessThan(0.1);
  });
});

describe('estimateFunctionResponseTokens', () => {
  it('counts a tool output like the JSON text that is sent', () => {
    for (const [json, reference] of GEMMA3_COUNTS.filter(([t]) => t.startsWith('{'))) {
      const response = JSON.parse(json) as unknown;
      const estimate = estimateFunctionResponseTokens(response);
      expect(estimate).toBe(estimateTextTokens(json));
      expect(Math.abs(estimate / reference - 1)).toBeLessThanOrEqual(0.15);
    }
  });

  it('counts newlines and quotes inside strings as their JSON escapes', () => {
    const withEscapes = estimateFunctionResponseTokens({ output: 'a\n"b"\\c\td\u0001' });
    expect(withEscapes).toBe(estimateTextTokens(JSON.stringify({ output: 'a\n"b"\\c\td\u0001' })));
    expect(withEscapes).toBeGreaterThan(estimateFunctionResponseTokens({ output: 'a b c d' }));
  });

  it('counts lone surrogates as the \\uXXXX escapes JSON.stringify writes, pairs as they are', () => {
    const value = { output: 'lone \ud800 and \udfff, paired 🚀, reversed \udc00\ud800' };
    expect(estimateFunctionResponseTokens(value)).toBe(estimateTextTokens(JSON.stringify(value)));
    expect(estimateFunctionResponseTokens({ output: 'x\ud800' })).toBeGreaterThan(
      estimateFunctionResponseTokens({ output: 'x🚀' }),
    );
  });

  it('equals estimateTextTokens(JSON.stringify(value)) for plain JSON values', () => {
    fc.assert(
      // 'binary' strings include any code unit: controls, quotes, lone surrogates, emoji.
      fc.property(fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' }), (value) => {
        const viaText = estimateTextTokens(JSON.stringify(value));
        const walked = estimateFunctionResponseTokens(value);
        // Identical streams of characters give identical sums; allow rounding noise only.
        expect(Math.abs(walked - viaText)).toBeLessThanOrEqual(Math.max(1, viaText * 0.02));
      }),
      { numRuns: 300 },
    );
  });

  it('follows JSON.stringify for undefined, functions, symbols, Dates, boxed values', () => {
    const date = new Date(0);
    const value = {
      a: undefined,
      f: () => 1,
      s: Symbol('x'),
      d: date,
      list: [undefined, () => 1, Symbol('y'), 1],
      boxed: new String('text'),
      n: NaN,
    };
    expect(estimateFunctionResponseTokens(value)).toBe(estimateTextTokens(JSON.stringify(value)));
    expect(estimateFunctionResponseTokens(undefined)).toBe(0);
    expect(estimateFunctionResponseTokens(() => 1)).toBe(0);
  });

  it('does not throw on cycles, BigInt, throwing toJSON or getters, and counts the rest', () => {
    const cyclic: Record<string, unknown> = { output: 'some text that is still counted' };
    cyclic['self'] = cyclic;
    cyclic['list'] = [cyclic, { inner: cyclic }];
    const hostile = {
      big: 12345678901234567890n,
      bad: {
        toJSON() {
          throw new Error('nope');
        },
      },
      get boom(): string {
        throw new Error('getter');
      },
      output: 'visible text',
    };
    const cyclicTokens = estimateFunctionResponseTokens(cyclic);
    expect(cyclicTokens).toBeGreaterThanOrEqual(
      estimateFunctionResponseTokens({ output: 'some text that is still counted' }),
    );
    expect(Number.isFinite(cyclicTokens)).toBe(true);
    const hostileTokens = estimateFunctionResponseTokens(hostile);
    expect(hostileTokens).toBeGreaterThan(
      estimateFunctionResponseTokens({ output: 'visible text' }),
    );
    expect(() => estimateFunctionResponseTokens(10n)).not.toThrow();
    expect(estimateFunctionResponseTokens(10n)).toBeGreaterThan(0);
  });

  it('does not overflow the stack on very deep nesting', () => {
    let deep: unknown = { output: 'leaf' };
    for (let i = 0; i < 100_000; i++) deep = { nested: deep };
    let tokens = -1;
    expect(() => (tokens = estimateFunctionResponseTokens(deep))).not.toThrow();
    expect(tokens).toBeGreaterThan(0);
    // Only the first maxValueDepth levels are counted.
    expect(tokens).toBeLessThan(TOKEN_MODEL.maxValueDepth * 10);
  });

  it('survives a Proxy whose traps throw', () => {
    const proxy = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    expect(() => estimateFunctionResponseTokens({ a: proxy, output: 'x' })).not.toThrow();
  });
});

describe('estimateTokenCountSync', () => {
  it('is 0 for an empty list', () => {
    expect(estimateTokenCountSync([])).toBe(0);
  });

  it('counts a text part as its text', () => {
    expect(estimateTokenCountSync([{ text: PROSE }])).toBe(estimateTextTokens(PROSE));
  });

  it('counts a function response as its response plus a fixed overhead', () => {
    const response = { output: 'Output: hello\nExit Code: 1' };
    expect(
      estimateTokenCountSync([
        { functionResponse: { id: 'c1', name: 'run_shell_command', response } },
      ]),
    ).toBe(estimateFunctionResponseTokens(response) + TOKEN_MODEL.functionResponseOverhead);
  });

  it('adds up multiple parts', () => {
    const parts: Part[] = [
      { text: PROSE },
      { functionCall: { id: 'c1', name: 'read_file', args: { path: 'a.ts' } } },
      { functionResponse: { id: 'c1', name: 'read_file', response: { output: 'x'.repeat(500) } } },
      image(),
    ];
    const sum = parts.reduce((total, part) => total + estimateTokenCountSync([part]), 0);
    expect(estimateTokenCountSync(parts)).toBe(sum);
    expect(estimateTokenCountSync(parts)).toBeGreaterThan(TOKEN_MODEL.imageTokens);
  });

  it('counts images and PDFs by fixed estimates', () => {
    expect(estimateTokenCountSync([image('image/png')])).toBe(3000);
    expect(estimateTokenCountSync([image('image/jpeg'), image('image/webp')])).toBe(6000);
    expect(
      estimateTokenCountSync([
        { fileData: { mimeType: 'application/pdf', fileUri: 'gs://b/f.pdf' } },
      ]),
    ).toBe(25_800);
  });

  it('counts other parts (functionCall) by their JSON size', () => {
    const call: Part = { functionCall: { name: 'run_shell_command', args: { command: 'ls -la' } } };
    expect(estimateTokenCountSync([call])).toBe(estimateTextTokens(JSON.stringify(call)));
  });

  it('recurses into functionResponse.parts up to the depth cap', () => {
    // Each level is a function response whose parts hold an image and the next level.
    const level = (n: number): Part => ({
      functionResponse: {
        name: 'f',
        response: {},
        parts: (n > 0 ? [image(), level(n - 1)] : [image()]) as never,
      },
    });
    const perLevel = TOKEN_MODEL.functionResponseOverhead + estimateFunctionResponseTokens({});
    // Level lists at depths 1, 2, 3 are counted (3 images); deeper lists are not.
    const capped = 3 * TOKEN_MODEL.imageTokens + 3 * perLevel + perLevel;
    expect(estimateTokenCountSync([level(10)])).toBe(capped);
    expect(estimateTokenCountSync([level(1000)])).toBe(capped);
    expect(estimateTokenCountSync([level(1)])).toBe(2 * TOKEN_MODEL.imageTokens + 2 * perLevel);
    // Starting deeper than the cap counts nothing.
    expect(estimateTokenCountSync([image()], TOKEN_MODEL.maxPartDepth + 1)).toBe(0);
  });

  it('does not throw on malformed parts', () => {
    const parts = [
      null,
      undefined,
      42,
      { functionResponse: { response: 10n } },
    ] as unknown as Part[];
    expect(() => estimateTokenCountSync(parts)).not.toThrow();
  });
});
