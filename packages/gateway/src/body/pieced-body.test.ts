import { describe, expect, it } from 'vitest';
import { BodyPieces, MAX_PIECES, PiecedBody, SMALL_PIECE_BYTES } from './pieced-body.js';

/** `[a, b, ...]` of long strings, with `spacing` between elements, and where each element is. */
function arrayBody(
  count: number,
  spacing: string,
): { raw: Buffer; spans: Array<[number, number]> } {
  const elements = Array.from({ length: count }, (_, index) =>
    JSON.stringify(String(index).repeat(SMALL_PIECE_BYTES)),
  );
  const text = `{"a":[${elements.join(`,${spacing}`)}]}`;
  const spans: Array<[number, number]> = [];
  let at = text.indexOf('[') + 1;
  for (const element of elements) {
    spans.push([at, at + element.length]);
    at += element.length + 1 + spacing.length;
  }
  return { raw: Buffer.from(text), spans };
}

/** The body with element `index` replaced by `"w"`, written as the reader writes it. */
function written(raw: Buffer, spans: Array<[number, number]>, rewrite: Set<number>) {
  const pieces = new BodyPieces(raw);
  pieces.fromRaw(0, (spans[0] as [number, number])[0]);
  spans.forEach(([start, end], index) => {
    if (index > 0) pieces.comma();
    if (rewrite.has(index)) pieces.written(Buffer.from('"w"'), end);
    else pieces.fromRaw(start, end);
  });
  pieces.fromRaw((spans.at(-1) as [number, number])[1], raw.length);
  return pieces.finish();
}

const expected = (raw: Buffer, spans: Array<[number, number]>, rewrite: Set<number>) => {
  const elements = spans.map(([start, end], index) =>
    rewrite.has(index) ? '"w"' : raw.subarray(start, end).toString(),
  );
  return Buffer.from(`{"a":[${elements.join(',')}]}`);
};

describe('BodyPieces', () => {
  it("sends the client's adjoining bytes as one piece each, and the same bytes as a join", () => {
    const { raw, spans } = arrayBody(6, '');
    const rewrite = new Set([2, 4]);
    const body = written(raw, spans, rewrite);
    expect(body).toBeInstanceOf(PiecedBody);
    const pieced = body as PiecedBody;
    // Two runs of the client's bytes, the rewritten elements (with their comma and what is
    // short next to them) copied together: run, "w", run, "w", run.
    expect(pieced.pieces.map((piece) => piece.length > SMALL_PIECE_BYTES)).toEqual([
      true,
      false,
      true,
      false,
      true,
    ]);
    expect(pieced.length).toBe(pieced.joined().length);
    expect(pieced.joined().equals(expected(raw, spans, rewrite))).toBe(true);
  });

  it('writes a comma where the client spaced its elements, as a whole write did', () => {
    const { raw, spans } = arrayBody(4, ' \n');
    const rewrite = new Set([1]);
    const body = written(raw, spans, rewrite);
    const bytes = body instanceof PiecedBody ? body.joined() : body;
    expect(bytes.equals(expected(raw, spans, rewrite))).toBe(true);
  });

  it('joins a body of more pieces than a few dozen writes are worth', () => {
    const { raw, spans } = arrayBody(2 * MAX_PIECES, '');
    const rewrite = new Set(spans.map((_, index) => index).filter((index) => index % 2 === 1));
    const body = written(raw, spans, rewrite);
    expect(Buffer.isBuffer(body)).toBe(true);
    expect((body as Buffer).equals(expected(raw, spans, rewrite))).toBe(true);
  });
});

describe('BodyPieces.rawElement', () => {
  it('collects the same pieces as a comma and the element, with or without spacing', () => {
    for (const spacing of ['', ' ', '\n  ']) {
      const { raw, spans } = arrayBody(5, spacing);
      for (const rewrite of [new Set<number>(), new Set([0]), new Set([2, 3]), new Set([4])]) {
        const oneStep = new BodyPieces(raw);
        const twoSteps = new BodyPieces(raw);
        for (const pieces of [oneStep, twoSteps]) {
          pieces.fromRaw(0, (spans[0] as [number, number])[0]);
        }
        spans.forEach(([start, end], index) => {
          if (rewrite.has(index)) {
            for (const pieces of [oneStep, twoSteps]) {
              if (index > 0) pieces.comma();
              pieces.written(Buffer.from('"w"'), end);
            }
            return;
          }
          oneStep.rawElement(start, end, index === 0);
          if (index > 0) twoSteps.comma();
          twoSteps.fromRaw(start, end);
        });
        const sent = [oneStep, twoSteps].map((pieces) => {
          pieces.fromRaw((spans.at(-1) as [number, number])[1], raw.length);
          const body = pieces.finish();
          return body instanceof PiecedBody
            ? body.pieces.map((piece) => piece.toString())
            : [body.toString()];
        });
        expect(sent[0]).toEqual(sent[1]);
      }
    }
  });
});
