import { describe, expect, it } from 'vitest';
import { findRequestPoints, flattenSession } from './request-points.js';
import { sessionOf, text } from '../test-data/engine-fixtures.js';

describe('findRequestPoints', () => {
  it('puts a request before every model turn', () => {
    const points = findRequestPoints(
      flattenSession(
        sessionOf([text('user', 'a'), text('model', 'b'), text('user', 'c'), text('model', 'd')]),
      ),
    );
    expect(points.map((point) => point.index)).toEqual([0, 2]);
    expect(points.map((point) => point.firstOfTask)).toEqual([true, false]);
  });

  it('sends a trailing user content too, and only the last of a run of user contents', () => {
    const points = findRequestPoints(
      flattenSession(
        sessionOf(
          [text('user', 'a'), text('user', 'b'), text('model', 'c'), text('user', 'd')],
          [text('user', 'e'), text('model', 'f')],
        ),
      ),
    );
    expect(points).toEqual([
      { index: 1, task: 0, firstOfTask: true },
      { index: 3, task: 0, firstOfTask: false },
      { index: 4, task: 1, firstOfTask: true },
    ]);
  });
});
