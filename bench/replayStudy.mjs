/**
 * What the section-3 benches share (cachingCost.mjs, informationKept.mjs, policyFrontier.mjs):
 * the shared traces per folder (8 tasks chained per long session, as `toolmask replay --concat 8`),
 * replays through the engine of `toolmask replay` with repeatable figures, pricing, and per-folder
 * sums of the replay metrics (information kept, the offline optimum).
 *
 * Repeatable: a snippet carries the path of its file, so the scratch folder's name is part of
 * every masked output's token count. The folder is `<tmp>/toolmask-bench-<6 lower-case letters>`:
 * unique per run (benches in other checkouts may run at the same time) but always the same length
 * and the same kind of characters, which is all the token estimator sees. gemini-cli names its
 * files with `Math.random()`; its replays run with a seeded generator in its place.
 */
import { randomInt } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const DISCOUNTS = [0.1, 0.25];
export const CHAINED_TASKS = 8;

/** The superseded reasons of this run's toolmask replays (`setSupersededReasons`); core's default. */
let supersededReasons;

/**
 * Which reasons make an output superseded in every toolmask replay of this run (`run.mjs
 * --superseded rerun,read-again`; `none` turns superseded-first off), to measure a variant of the
 * policy with the whole section. Unset: core's default (all three). A tuning that names its own
 * (the optimum's every-request runs, the ablation) keeps it.
 */
export function setSupersededReasons(reasons) {
  supersededReasons = reasons;
}

/** `tuning` with this run's superseded reasons (see `setSupersededReasons`); may be undefined. */
export function runTuning(tuning) {
  if (supersededReasons === undefined) return tuning;
  return { supersededReasons, ...tuning };
}

export async function loadFolders(cli, tracesDir) {
  const names = fs
    .readdirSync(tracesDir)
    .filter((name) => fs.statSync(path.join(tracesDir, name)).isDirectory())
    .sort();
  const folders = [];
  for (const folder of names) {
    const loaded = await cli.loadInputs([path.join(tracesDir, folder)]);
    folders.push({ folder, sessions: cli.chainTasks(loaded.tasks, CHAINED_TASKS) });
  }
  return folders;
}

/** A scratch folder whose path always costs the same tokens (see the module comment). */
export function createScratch() {
  for (;;) {
    const letters = Array.from({ length: 6 }, () => String.fromCharCode(97 + randomInt(26)));
    const folder = path.join(os.tmpdir(), `toolmask-bench-${letters.join('')}`);
    try {
      fs.mkdirSync(folder);
      return { path: folder, remove: () => fs.rmSync(folder, { recursive: true, force: true }) };
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
  }
}

/** Runs `action` with `Math.random` replaced by a seeded generator (xorshift32). */
export async function withRepeatableRandom(action, seed = 0x2545f491) {
  const original = Math.random;
  let state = seed >>> 0 || 1;
  Math.random = () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 2 ** 32;
  };
  try {
    return await action();
  } finally {
    Math.random = original;
  }
}

/** The replay summary's fields this bench prices and prints. */
export function totalsOf(summary) {
  return {
    requests: summary.requestCount,
    peak: summary.peakContextTokens,
    input: summary.totalInputTokens,
    cached: summary.cachedTokens,
    breaks: summary.cacheBreaks,
    masked: summary.outputsMasked,
    // Only a strategy that reports its masked outputs (toolmask) says which were superseded.
    superseded: summary.outputsSuperseded,
  };
}

export function mergeTotals(a, b) {
  return {
    requests: a.requests + b.requests,
    peak: Math.max(a.peak, b.peak),
    input: a.input + b.input,
    cached: a.cached + b.cached,
    breaks: a.breaks + b.breaks,
    masked: a.masked + b.masked,
    superseded:
      a.superseded === undefined && b.superseded === undefined
        ? undefined
        : (a.superseded ?? 0) + (b.superseded ?? 0),
  };
}

export const billed = (totals, discount) => totals.input - totals.cached + discount * totals.cached;

/**
 * Replays every folder through the strategies `specs` makes: `[{ name, make(scratchPath),
 * observe? }]`, with the engine's `options` (and `idleGapsFor(sessions)`, the idle gaps of a
 * folder's sessions). Returns, per folder and strategy name, `{ totals, moments(sessionId),
 * requests(sessionId) }` (moments only for observed strategies; requests: the engine's rows of
 * that session, in request order).
 */
export async function replayFolders(cli, folders, specs, scratchPath, options = {}) {
  const { idleGapsFor, ...engineOptions } = options;
  const byFolder = {};
  for (const { folder, sessions } of folders) {
    const made = specs.map((spec) => {
      const strategy = spec.make(scratchPath);
      const observed = spec.observe ? cli.observeMasking(strategy) : undefined;
      return { name: spec.name, strategy: observed?.strategy ?? strategy, observed };
    });
    const result = await withRepeatableRandom(() =>
      cli.replaySessions(
        sessions,
        made.map((entry) => entry.strategy),
        { ...engineOptions, ...(idleGapsFor ? { idleGaps: idleGapsFor(sessions) } : {}) },
      ),
    );
    byFolder[folder] = Object.fromEntries(
      made.map((entry, index) => [
        entry.name,
        {
          totals: totalsOf(result.strategies[index].summary),
          moments: (sessionId) => entry.observed?.moments(sessionId) ?? [],
          requests: rowsBySession(result.strategies[index].requests),
        },
      ]),
    );
  }
  return byFolder;
}

function rowsBySession(rows) {
  const bySession = new Map();
  for (const row of rows) {
    if (!bySession.has(row.session)) bySession.set(row.session, []);
    bySession.get(row.session)[row.request] = row;
  }
  return (sessionId) => bySession.get(sessionId) ?? [];
}

/** Quote indexes per session, built once per bench run and shared by every strategy. */
export function quoteIndexes(cli) {
  const cache = new Map();
  return (session) => {
    let quotes = cache.get(session);
    if (!quotes) {
      quotes = new cli.SessionQuotes(cli.flattenSession(session));
      cache.set(session, quotes);
    }
    return quotes;
  };
}

/** Information kept over a folder's sessions, from `momentsOf(session)`. */
export async function keptOver(cli, sessions, momentsOf, quotesOf) {
  let kept = { ...cli.NOTHING_KEPT };
  for (const session of sessions) {
    const moments = await momentsOf(session);
    kept = cli.addInformationKept(kept, cli.informationKept(session, moments, quotesOf(session)));
  }
  return kept;
}

export const percent = (share) => (share === undefined ? 'n/a' : `${(share * 100).toFixed(1)}%`);
export const integer = (value) => Math.round(value).toLocaleString('en-US');

/** A plain-text table: the first row is the header; columns after the first are right-aligned. */
export function formatTable(rows) {
  const widths = rows[0].map((_, column) =>
    Math.max(...rows.map((row) => String(row[column]).length)),
  );
  return rows
    .map(
      (row) =>
        '  ' +
        row
          .map((cell, column) =>
            column === 0
              ? String(cell).padEnd(widths[column])
              : String(cell).padStart(widths[column]),
          )
          .join('  '),
    )
    .join('\n');
}
