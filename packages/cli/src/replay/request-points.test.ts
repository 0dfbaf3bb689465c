import { describe, expect, it } from 'vitest';
import { findRequestPoints, flattenSession } from './request-points.js';
import { text } from '../test-data/engine-fixtures.js';
import type { ReplaySession } from './types.js';

const session = (...tasks: ReturnType<typeof text>[][]): ReplaySession => ({
  id: 's',
  label: 's',
  tasks: tasks.map((contents, index) => ({ label: `t${index}`, contents })),
});

describe('findRequestPoints', () => {
  it('puts a request before every model turn', () => {
    const points = findRequestPoints(
      flattenSession(
        session([text('user', 'a'), text('model', 'b'), text('user', 'c'), text('model', 'd')]),
      ),
    );
    expect(points.map((point) => point.index)).toEqual([0, 2]);
    expect(points.map((point) => point.firstOfTask)).toEqual([true, false]);
  });

  it('sends a trailing user content too, and only the last of a run of user contents', () => {
    const points = findRequestPoints(
      flattenSession(
        session(
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
