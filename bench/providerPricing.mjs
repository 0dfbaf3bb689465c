/**
 * Section 3 priced per provider: the replays of cachingCost.mjs billed as Gemini and OpenAI bill
 * them (reads 0.1x, no write premium: the "@0.1" columns of the tables above) and as Anthropic
 * does (reads 0.1x, writes 1.25x with the 5-minute time to live), with the figures from core's
 * `CACHE_ECONOMICS`. Rows: none, gemini-cli's built-in, toolmask as the Gemini and OpenAI fronts
 * run it (no write premium assumed), toolmask as the Anthropic front runs it (its warm trigger
 * weighs Anthropic's prices), and the offline optimum under each pricing.
 *
 * Every uncached token of a request is priced as written (Claude Code's breakpoint sits on the
 * newest block, so what is not read is written): billed = w × (input − cached) + r × cached. The
 * optimum minimises the same sum, and w × input − (w − r) × cached = w × (input − (1 − r/w) ×
 * cached): w times the replay's own price at discount r/w (0.08 for Anthropic), so the optimum's
 * dynamic programme (cli's `optimalSchedule`) runs as it is. All three providers' idle gap is 5
 * minutes, so the replay's cold moments are the same under each.
 */
import { formatTable, integer, percent } from './replayStudy.mjs';

/** The replay of toolmask with Anthropic's economics in its trigger. */
export const ANTHROPIC_TRIGGER = 'toolmask, Anthropic economics';

/** One pricing per kind of provider, from core's figures (Gemini's and OpenAI's are the same). */
export function providerPricings(core) {
  const { gemini, openai, anthropic } = core.CACHE_ECONOMICS;
  if (
    gemini.cacheWritePrice !== openai.cacheWritePrice ||
    gemini.cacheReadPrice !== openai.cacheReadPrice
  ) {
    throw new Error('Gemini and OpenAI no longer price alike: give each its own pricing here');
  }
  return [
    { name: 'Gemini/OpenAI', write: gemini.cacheWritePrice, read: gemini.cacheReadPrice },
    { name: 'Anthropic', write: anthropic.cacheWritePrice, read: anthropic.cacheReadPrice },
  ];
}

/** Billed tokens of a replay's totals under one pricing. */
export const billedUnder = (totals, pricing) =>
  pricing.write * (totals.input - totals.cached) + pricing.read * totals.cached;

/** The optimum over a folder's schedule models under each pricing: billed tokens and breaks. */
export function optimumPerPricing(cli, models, pricings) {
  return Object.fromEntries(
    pricings.map((pricing) => {
      const schedules = models.map((model) =>
        cli.optimalSchedule(model, pricing.read / pricing.write),
      );
      return [
        pricing.name,
        {
          billed:
            pricing.write * schedules.reduce((sum, schedule) => sum + schedule.billedTokens, 0),
          breaks: schedules.reduce((sum, schedule) => sum + schedule.cacheBreaks, 0),
        },
      ];
    }),
  );
}

const OPTIMUM = 'optimum';
const ROWS = ['none', 'gemini-cli', 'toolmask', ANTHROPIC_TRIGGER, OPTIMUM];

/**
 * The tables: per task-start mode, each scope's rows under each pricing (billed, against
 * gemini-cli, share of the optimal savings); then toolmask under Anthropic's pricing with and
 * without the economics in its trigger, from the same run. `scopeOf(mode, scope)` gives the
 * summed totals (and `pricing`, the optimum's) of one scope.
 */
export function printProviderPricing(results, scopes, scopeOf, log) {
  const { pricings } = results;
  const billedIn = (scoped, name, pricing) =>
    name === OPTIMUM ? scoped.pricing[pricing.name].billed : billedUnder(scoped[name], pricing);
  log(
    `\nPer provider's pricing (${pricings
      .map((pricing) => `${pricing.name}: writes ${pricing.write}x, reads ${pricing.read}x`)
      .join(
        '; ',
      )}; a 5-minute idle gap for all). "toolmask" assumes no write premium (the Gemini and OpenAI fronts); "${ANTHROPIC_TRIGGER}" weighs Anthropic's prices (the Anthropic front)`,
  );
  for (const mode of ['cold', 'warm']) {
    log(`\n${mode} task starts, 8 sessions per long session`);
    const rows = [
      [
        'scope, strategy',
        'breaks',
        ...pricings.flatMap((pricing) => [`${pricing.name} billed`, 'vs gemini', 'of optimum']),
      ],
    ];
    for (const scope of scopes) {
      const scoped = scopeOf(mode, scope);
      for (const name of ROWS) {
        const breaks =
          name === OPTIMUM
            ? pricings.map((pricing) => scoped.pricing[pricing.name].breaks).join(' / ')
            : scoped[name].breaks;
        rows.push([
          `${scope}: ${name === OPTIMUM ? 'optimum (knows the future)' : name}`,
          breaks,
          ...pricings.flatMap((pricing) => {
            const billed = billedIn(scoped, name, pricing);
            const none = billedIn(scoped, 'none', pricing);
            const best = billedIn(scoped, OPTIMUM, pricing);
            return [
              integer(billed),
              `${(billed / billedIn(scoped, 'gemini-cli', pricing)).toFixed(3)}x`,
              percent((none - billed) / (none - best)),
            ];
          }),
        ]);
      }
    }
    log(formatTable(rows));
  }

  const anthropic = pricings.find((pricing) => pricing.name === 'Anthropic');
  log(
    `\ntoolmask under Anthropic's pricing, with the economics in its trigger / without (same run): billed, and the change`,
  );
  for (const mode of ['cold', 'warm']) {
    for (const scope of scopes) {
      const scoped = scopeOf(mode, scope);
      const withEconomics = billedIn(scoped, ANTHROPIC_TRIGGER, anthropic);
      const without = billedIn(scoped, 'toolmask', anthropic);
      const change = withEconomics / without - 1;
      log(
        `  ${mode} task starts, ${scope}: ${integer(withEconomics)} / ${integer(without)} (${change <= 0 ? '' : '+'}${(change * 100).toFixed(2)}%; breaks ${scoped[ANTHROPIC_TRIGGER].breaks} / ${scoped.toolmask.breaks})`,
      );
    }
  }
}
