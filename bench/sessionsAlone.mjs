/**
 * Each session alone (issue 34): every recorded session of `../shared/traces` replayed on its own,
 * not chained, twice: its cache warm from its second request on ("warm"), and with one seeded idle
 * gap inside (`seedIdleGaps`, as information kept's in-task replays: a cold moment), billed under Gemini's and
 * OpenAI's prices (writes 1x, reads 0.1x) and Anthropic's (writes 1.25x, reads 0.1x), for none,
 * gemini-cli's built-in and toolmask (with Anthropic's economics in its trigger for Anthropic's
 * prices, as the Anthropic front runs it). Per folder: how many sessions toolmask bills more than
 * no masking by over 0.1%, the worst of them, and the totals. The goal of issue 34 is none.
 *
 *   node bench/sessionsAlone.mjs [--traces DIR]
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { billedUnder, providerPricings } from './providerPricing.mjs';
import { createScratch, formatTable, integer, replayFolders } from './replayStudy.mjs';

/** Billed more than this share above no masking counts as a loss. */
export const TOLERANCE = 0.001;

function sessionBilled(rows, pricing) {
  let input = 0;
  let cached = 0;
  for (const row of rows) {
    if (!row) continue;
    input += row.contextTokens;
    cached += row.cachedTokens;
  }
  return billedUnder({ input, cached }, pricing);
}

export async function runSessionsAloneBench({ cli, core, tracesDir, print = true }) {
  const pricings = providerPricings(core);
  const folders = [];
  const names = fs
    .readdirSync(tracesDir)
    .filter((name) => fs.statSync(path.join(tracesDir, name)).isDirectory())
    .sort();
  for (const folder of names) {
    const loaded = await cli.loadInputs([path.join(tracesDir, folder)]);
    folders.push({ folder, sessions: cli.chainTasks(loaded.tasks, 1) });
  }
  const config = core.resolveToolOutputMaskingConfig();
  const toolmask = (name, tuning) => ({
    name,
    make: (scratchPath) =>
      cli.createToolmaskStrategy({
        config,
        projectTempDir: scratchPath,
        name,
        ...(tuning ? { tuning } : {}),
      }),
  });
  const specs = [
    { name: 'none', make: () => cli.createNoneStrategy() },
    {
      name: 'gemini-cli',
      make: (scratchPath) => cli.createGeminiCliStrategy({ projectTempDir: scratchPath }),
    },
    toolmask('toolmask'),
    toolmask('toolmask, Anthropic economics', { cacheEconomics: core.CACHE_ECONOMICS.anthropic }),
  ];
  const modes = {
    warm: { warmTaskStarts: true },
    'an idle gap inside': {
      warmTaskStarts: true,
      idleGapsFor: (sessions) => cli.seedIdleGaps(sessions, 1),
    },
  };
  const results = {};
  for (const [mode, options] of Object.entries(modes)) {
    const scratch = createScratch();
    try {
      const byFolder = await replayFolders(cli, folders, specs, scratch.path, options);
      for (const { folder, sessions } of folders) {
        results[`${folder}, ${mode}`] = priced(byFolder[folder], sessions, pricings);
      }
    } finally {
      scratch.remove();
    }
  }
  if (print) printSessionsAlone(results, console.log);
  return results;
}

/** One folder's replays priced per session under each pricing. */
function priced(replays, sessions, pricings) {
  const byPricing = {};
  {
    for (const pricing of pricings) {
      const ours = pricing.name === 'Anthropic' ? 'toolmask, Anthropic economics' : 'toolmask';
      const entry = { sessions: sessions.length, losses: [], totals: {} };
      for (const name of ['none', 'gemini-cli', ours]) entry.totals[name] = 0;
      for (const session of sessions) {
        const bill = (name) => sessionBilled(replays[name].requests(session.id), pricing);
        const none = bill('none');
        const mine = bill(ours);
        entry.totals.none += none;
        entry.totals['gemini-cli'] += bill('gemini-cli');
        entry.totals[ours] += mine;
        if (mine > none * (1 + TOLERANCE))
          entry.losses.push({ id: session.id, ratio: mine / none });
      }
      entry.ours = ours;
      byPricing[pricing.name] = entry;
    }
  }
  return byPricing;
}

export function printSessionsAlone(results, log) {
  log(
    "\nEach session alone (issue 34): billed against no masking per provider's prices, warm (no idle gap) and with one idle gap inside",
  );
  const rows = [
    [
      'folder',
      'prices',
      'sessions',
      'toolmask > none by 0.1%+',
      'worst',
      'toolmask / none',
      'gemini-cli / none',
    ],
  ];
  for (const [folder, byPricing] of Object.entries(results)) {
    for (const [pricing, entry] of Object.entries(byPricing)) {
      const worst = entry.losses.reduce((max, loss) => Math.max(max, loss.ratio), 0);
      rows.push([
        folder,
        pricing,
        integer(entry.sessions),
        integer(entry.losses.length),
        worst > 0 ? `${((worst - 1) * 100).toFixed(2)}%` : '-',
        `${(entry.totals[entry.ours] / entry.totals.none).toFixed(4)}x`,
        `${(entry.totals['gemini-cli'] / entry.totals.none).toFixed(4)}x`,
      ]);
    }
  }
  log(formatTable(rows));
  const met = Object.values(results).every((byPricing) =>
    Object.values(byPricing).every(
      (entry) => entry.losses.length === 0 && entry.totals[entry.ours] <= entry.totals.none,
    ),
  );
  log(
    `Goal (issue 34): toolmask bills no more than no masking on every session alone (within 0.1%) and in total: ${met ? 'met' : 'NOT met'}`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const index = process.argv.indexOf('--traces');
  const tracesDir =
    index >= 0 ? process.argv[index + 1] : path.join(root, '..', 'shared', 'traces');
  const cli = await import('@toolmask/cli');
  const core = await import('@toolmask/core');
  await runSessionsAloneBench({ cli, core, tracesDir });
}
