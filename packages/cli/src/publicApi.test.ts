/**
 * The curated public surface of `@toolmask/cli` (`src/lib.ts`): exactly these names, values and
 * types, so that adding one is a decision. Values are what docs/cli.md promises and the bench
 * (bench/*.mjs) uses; types are what those values' parameters and results name.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readPublicSurface } from '@toolmask/test-support/public-surface';
import * as cli from './lib.js';

const PUBLIC_RUNTIME_NAMES = [
  'NOTHING_KEPT',
  'NOTHING_OUT_OF_VIEW',
  'SessionQuotes',
  'addInformationKept',
  'addOutOfView',
  'buildScheduleModel',
  'chainTasks',
  'createGeminiCliStrategy',
  'createNoneStrategy',
  'createToolmaskStrategy',
  'earlyMaskingMoments',
  'findRequestPoints',
  'flattenSession',
  'informationKept',
  'keptShare',
  'keptShareOfAll',
  'lineKey',
  'loadInputs',
  'observeMasking',
  'optimalSchedule',
  'outOfView',
  'quantile',
  'quotableText',
  'reachBacks',
  'replaySessions',
  'responseText',
  'scheduleCost',
  'seedIdleGaps',
  'withColdSignal',
];

const PUBLIC_TYPE_NAMES = [
  'ColdRequestRule',
  'ContentTokenCounter',
  'DirectoryInput',
  'FlatContent',
  'GeminiCliMaskingConfig',
  'GeminiCliStrategyOptions',
  'IdleGaps',
  'InformationKept',
  'LoadInputsOptions',
  'LoadedInputs',
  'LoadedTask',
  'MaskingMoment',
  'ObservedStrategy',
  'OutOfView',
  'QuoteIndex',
  'RecordedUsage',
  'RecordedUsageSummary',
  'RejectedInput',
  'RequestPoint',
  'ReplayOptions',
  'ReplayResult',
  'ReplaySession',
  'ReplayStrategy',
  'ReplayTask',
  'RequestRow',
  'ScheduleCost',
  'ScheduleModel',
  'ScheduleModelInput',
  'SkippedInput',
  'StrategyPassOutcome',
  'StrategyReplay',
  'StrategyRequest',
  'StrategySession',
  'StrategySummary',
  'ToolmaskStrategyOptions',
];

describe('@toolmask/cli', () => {
  const surface = readPublicSurface(fileURLToPath(new URL('./lib.ts', import.meta.url)));

  it('exports exactly the curated names at runtime', () => {
    expect(Object.keys(cli).sort()).toEqual([...PUBLIC_RUNTIME_NAMES].sort());
    expect(surface.values).toEqual([...PUBLIC_RUNTIME_NAMES].sort());
  });

  it('exports exactly the curated type names', () => {
    expect(surface.types).toEqual([...PUBLIC_TYPE_NAMES].sort());
  });
});
