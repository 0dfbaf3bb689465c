import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as fsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSeededRandom, runGeminiCliPass } from './gemini-cli-sandbox.js';
import { createPathMapper } from './shown-output-folder.js';

const work = mkdtempSync(join(tmpdir(), 'toolmask-sandbox-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SHOWN = '/toolmask-replay/test';

function sandbox(seed = 's') {
  return { random: createSeededRandom(seed), now: 1234, toRealPath: createPathMapper(SHOWN, work) };
}

describe('the sandbox of a gemini-cli pass', () => {
  it('the seeded generator gives the same numbers in [0, 1) for the same seed', () => {
    const a = createSeededRandom('x');
    const b = createSeededRandom('x');
    const numbers = Array.from({ length: 100 }, () => a());
    expect(Array.from({ length: 100 }, () => b())).toEqual(numbers);
    expect(numbers.every((n) => n >= 0 && n < 1)).toBe(true);
    expect(new Set(numbers).size).toBe(100);
    expect(createSeededRandom('y')()).not.toBe(numbers[0]);
  });

  it('maps writes under the shown folder to the real one and counts them; the rest is untouched', async () => {
    const outside = join(work, 'outside.txt');
    const pass = await runGeminiCliPass(sandbox(), async () => {
      await fsPromises.mkdir(join(SHOWN, 'tool-outputs', 'session-1'), { recursive: true });
      await fsPromises.writeFile(
        join(SHOWN, 'tool-outputs', 'session-1', 'a.txt'),
        'héllo',
        'utf-8',
      );
      await fsPromises.writeFile(outside, 'not counted');
      return [Math.random(), Date.now()];
    });
    expect(pass.value).toEqual([createSeededRandom('s')(), 1234]);
    expect(pass.bytesWritten).toBe(6);
    expect(pass.filesWritten).toBe(1);
    expect(readFileSync(join(work, 'tool-outputs', 'session-1', 'a.txt'), 'utf8')).toBe('héllo');
    expect(readFileSync(outside, 'utf8')).toBe('not counted');
    expect(existsSync(SHOWN)).toBe(false);
  });

  it('restores Math.random, Date.now and node:fs/promises after a pass, also one that throws', async () => {
    const originals = [Math.random, Date.now, fsPromises.writeFile, fsPromises.mkdir];
    await expect(
      runGeminiCliPass(sandbox(), () => Promise.reject(new Error('boom'))),
    ).rejects.toThrow('boom');
    await runGeminiCliPass(sandbox(), async () => undefined);
    expect([Math.random, Date.now, fsPromises.writeFile, fsPromises.mkdir]).toEqual(originals);
  });

  it('passes take turns: a second pass starts after the first has restored everything', async () => {
    const order: string[] = [];
    let release: () => void = () => {};
    const first = runGeminiCliPass(sandbox('a'), async () => {
      order.push('first start');
      await new Promise<void>((resolve) => (release = resolve));
      order.push('first end');
    });
    const second = runGeminiCliPass(sandbox('b'), async () => {
      order.push('second');
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first start', 'first end', 'second']);
  });
});
