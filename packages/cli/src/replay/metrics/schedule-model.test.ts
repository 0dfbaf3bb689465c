import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveToolOutputMaskingConfig } from '@toolmask/core';
import { replaySessions } from '../engine.js';
import { observeMasking } from '../masking-moments.js';
import { createNoneStrategy } from '../strategies/none.js';
import { createToolmaskStrategy } from '../strategies/toolmask.js';
import { withColdSignal } from '../strategies/cold-signal.js';
import { text, toolResponse } from '../../test-data/engine-fixtures.js';
import { buildScheduleModel, observedStates } from './schedule-model.js';
import { optimalSchedule, scheduleCost } from './optimal-schedule.js';
import type { Content, ReplaySession, ReplayTask, RequestRow, StrategyReplay } from '../types.js';

const scratch = mkdtempSync(join(tmpdir(), 'toolmask-schedule-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A task of `outputs` shell outputs of ~5,000 characters each. */
function task(label: string, outputs: number): ReplayTask {
  const contents: Content[] = [text('user', `task ${label}`)];
  for (let index = 0; index < outputs; index++) {
    const lines = Array.from(
      { length: 200 },
      (_, line) => `${label}${index} line ${line} of a log`,
    );
    contents.push(
      text('model', `step ${index}`),
      toolResponse(`${label}-${index}`, lines.join('\n')),
    );
  }
  contents.push(text('model', 'done'));
  return { label, contents };
}

const session: ReplaySession = {
  id: 'replay-1',
  label: 'two tasks',
  tasks: [task('a', 9), task('b', 9)],
};
const config = resolveToolOutputMaskingConfig({
  toolProtectionThreshold: 6_000,
  minPrunableTokensThreshold: 7_000,
  coldCacheProtectionThreshold: 3_000,
});
const toolmask = (name: string) =>
  createToolmaskStrategy({ config, projectTempDir: scratch, name });

describe('buildScheduleModel on a replay of the real pass', () => {
  it('prices the observed schedule exactly as the engine did, and the optimum is no dearer', async () => {
    const real = observeMasking(toolmask('toolmask'));
    const warmWindow = observeMasking(
      withColdSignal(
        createToolmaskStrategy({
          config: { ...config, coldCacheProtectionThreshold: config.toolProtectionThreshold },
          projectTempDir: scratch,
        }),
        true,
      ),
    );
    const coldWindow = observeMasking(withColdSignal(toolmask('cold window'), true));
    const result = await replaySessions(
      [session],
      [createNoneStrategy(), real.strategy, warmWindow.strategy, coldWindow.strategy],
    );
    const model = buildScheduleModel({
      session,
      warmWindowMoments: warmWindow.moments('replay-1'),
      coldWindowMoments: coldWindow.moments('replay-1'),
    });
    expect(model.outputs.length).toBeGreaterThan(4);
    // The cold-moment window reaches further at the second task's start (request 10).
    expect(model.coldEventEnds[10]).toBeGreaterThan(model.warmEventEnds[10] as number);

    const [none, masked] = result.strategies as [StrategyReplay, StrategyReplay];
    const states = observedStates(model, real.moments('replay-1'));
    expect(states.at(-1)).toBeGreaterThan(0);
    for (const discount of [0.1, 0.25]) {
      const billed = (rows: readonly RequestRow[]) =>
        rows.reduce((sum, row) => sum + row.contextTokens - (1 - discount) * row.cachedTokens, 0);
      const modelled = scheduleCost(model, states, discount);
      expect(modelled.billedTokens).toBeCloseTo(billed(masked.requests), 6);
      expect(modelled.inputTokens).toBeCloseTo(masked.summary.totalInputTokens, 6);
      const never = scheduleCost(
        model,
        states.map(() => 0),
        discount,
      );
      expect(never.billedTokens).toBeCloseTo(billed(none.requests), 6);
      const best = optimalSchedule(model, discount);
      expect(best.billedTokens).toBeLessThanOrEqual(modelled.billedTokens + 1e-6);
      expect(best.billedTokens).toBeLessThan(never.billedTokens);
    }
  });
});
