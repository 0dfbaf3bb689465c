/**
 * What the lines out of view cost the agent (issue 32), with and without `search_tool_outputs`:
 * one count beside 3.11's lines out of view (out-of-view.ts), on the same replays and moments.
 *
 * The replay's stored outputs: every output the strategy masked in the session is written, as the
 * store saves it (`fullOutputText`, the store's file name), into one session folder of a scratch
 * folder, newer masks newer on disk. Searching the session's every saved output (not only those
 * masked by the quoting turn) is the harder search: more outputs compete for the first results.
 *
 * - **With search**: one `search_tool_outputs` call per line out of view, its query one
 *   distinctive identifier of the line (the word of 4+ identifier characters that the fewest lines
 *   of the stored outputs hold, the longest on a tie; the longest word when the line has none).
 *   The real search runs over the stored outputs; the line is found when the answer (default
 *   limit) shows it in its own output. A line not found costs the search and a read as below.
 * - **Without search**: one `read_tool_output` per output holding lines out of view (the agent
 *   must know which output), 41 lines around its first such line (`offset`, `limit: 41`), as 3.7
 *   prices a read-back; the real reader answers over the same stored file.
 *
 * Each call and its answer are priced as 3.7 prices a read-back (readBacks.mjs `readBackBilled`):
 * an extra request at the request that produced the first turn quoting the line after the masking
 * (its context at the discount, call and answer uncached), call and answer then carried by every
 * later request of the session. Tokens are the replay's estimator's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as storage from '@toolmask/core/storage';
import { readBackBilled } from './readBacks.mjs';
import { DISCOUNTS, billed, formatTable, integer, mergeTotals } from './replayStudy.mjs';

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]{3,}/g;
const SLICE_LINES = 41;

export const NO_SEARCH_READ_BACKS = Object.freeze({
  lines: 0,
  searches: 0,
  found: 0,
  searchTokens: 0,
  reads: 0,
  readTokens: 0,
  withSearch: {},
  withoutSearch: {},
});

export function addSearchReadBacks(a, b) {
  const sum = (x, y) => {
    const out = { ...x };
    for (const [d, v] of Object.entries(y)) out[d] = (out[d] ?? 0) + v;
    return out;
  };
  return {
    lines: a.lines + b.lines,
    searches: a.searches + b.searches,
    found: a.found + b.found,
    searchTokens: a.searchTokens + b.searchTokens,
    reads: a.reads + b.reads,
    readTokens: a.readTokens + b.readTokens,
    withSearch: sum(a.withSearch, b.withSearch),
    withoutSearch: sum(a.withoutSearch, b.withoutSearch),
  };
}

/** The query an agent would type for `line`: its most distinctive identifier (module comment). */
export function distinctiveQuery(line, storedTextLower) {
  const words = line.match(IDENTIFIER) ?? [];
  if (words.length === 0) {
    return line.split(/\s+/).reduce((best, word) => (word.length > best.length ? word : best), '');
  }
  const linesHolding = (word) => {
    const needle = word.toLowerCase();
    let count = 0;
    for (let at = storedTextLower.indexOf(needle); at >= 0;) {
      count++;
      const next = storedTextLower.indexOf('\n', at);
      if (next < 0) break;
      at = storedTextLower.indexOf(needle, next);
    }
    return count;
  };
  const ranked = [...new Set(words)].map((word) => ({ word, holding: linesHolding(word) }));
  ranked.sort((a, b) => a.holding - b.holding || b.word.length - a.word.length);
  return ranked[0].word;
}

/** Writes the session's masked outputs as the store would; returns moment → stored name. */
function storeSession(root, sessionId, moments) {
  const folder = storage.sessionDirectory(root, sessionId);
  fs.mkdirSync(folder, { recursive: true });
  const names = new Map();
  const texts = [];
  for (const moment of moments) {
    if (moment.masked === moment.original) continue;
    const call = moment.original.functionResponse;
    const text = storage.fullOutputText(call.response ?? {});
    const name = storage.outputFileName(call.name, call.id, text);
    const file = path.join(folder, name);
    if (!fs.existsSync(file)) {
      fs.writeFileSync(file, text);
      texts.push(text);
    }
    // Newer masks are newer files (the search ranks newer first among equal matches).
    const when = new Date(Date.UTC(2026, 0, 1) + moment.request * 1000);
    fs.utimesSync(file, when, when);
    names.set(moment, name);
  }
  return { names, storedLower: texts.join('\n').toLowerCase() };
}

/** The request that produced the first model turn after `sentAt` quoting `line` (in `task`, or any). */
function quotingRequest(cli, flat, points, line, sentAt, task) {
  let quote = sentAt + 1;
  while (quote < flat.length) {
    const entry = flat[quote];
    if (task >= 0 && entry.task !== task) return undefined;
    if (entry.content.role === 'model' && cli.quotableText(entry.content).includes(line)) break;
    quote++;
  }
  if (quote >= flat.length) return undefined;
  let request = 0;
  while (request + 1 < points.length && points[request + 1].index < quote) request++;
  return request;
}

const callTokens = (core, name, args, answer) =>
  core.estimateTokenCountSync([{ functionCall: { name, args } }]) +
  core.estimateTokenCountSync([{ functionResponse: { name, response: { output: answer } } }]);

/** One session's lines out of view, and what reading them back costs each way. */
async function sessionReadBacks(cli, core, root, session, moments, quotes, options, rows) {
  const found = [];
  cli.outOfView(session, moments, quotes, {
    ...options,
    onOutOfView: (line, moment) => found.push({ line, moment }),
  });
  const total = { ...NO_SEARCH_READ_BACKS, withSearch: {}, withoutSearch: {} };
  if (found.length === 0) return total;
  const sessionId = `bench${String(session.id)
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 24)}`;
  const { names, storedLower } = storeSession(root, sessionId, moments);
  const access = { projectTempDir: root, sessionId, allowOtherSessions: false };
  const flat = cli.flattenSession(session);
  const points = cli.findRequestPoints(flat);
  const searchBacks = [];
  const readBacks = [];
  const firstPerOutput = new Map();
  const read = async (moment, line) => {
    const text = fs.readFileSync(
      path.join(storage.sessionDirectory(root, sessionId), names.get(moment)),
      'utf8',
    );
    const position = Math.max(
      0,
      text.split('\n').findIndex((raw) => cli.lineKey(raw) === line),
    );
    const params = {
      file: `session-${sessionId}/${names.get(moment)}`,
      offset: Math.max(1, position + 1 - 20),
      limit: SLICE_LINES,
    };
    const answer = await storage.readToolOutput(params, access);
    return callTokens(core, 'read_tool_output', params, answer.text);
  };
  for (const { line, moment } of found) {
    const sentAt = points[moment.request].index;
    const task = options.acrossTasks ? -1 : flat[moment.contentIndex].task;
    const request = quotingRequest(cli, flat, points, line, sentAt, task) ?? moment.request;
    total.lines++;
    const query = distinctiveQuery(line, storedLower);
    const answer = await storage.searchToolOutputs({ query }, access);
    const file = `session-${sessionId}/${names.get(moment)}`;
    const hit = answer.hits.some((h) => h.file === file && cli.lineKey(h.text) === line);
    let tokens = callTokens(core, 'search_tool_outputs', { query }, answer.text);
    total.searches++;
    if (hit) total.found++;
    else tokens += await read(moment, line);
    total.searchTokens += tokens;
    searchBacks.push({ request, tokens });
    const first = firstPerOutput.get(moment);
    if (!first || request < first.request) firstPerOutput.set(moment, { line, request });
  }
  for (const [moment, { line, request }] of firstPerOutput) {
    const tokens = await read(moment, line);
    total.reads++;
    total.readTokens += tokens;
    readBacks.push({ request, tokens });
  }
  for (const d of options.discounts) {
    total.withSearch[d] = readBackBilled(searchBacks, rows, d);
    total.withoutSearch[d] = readBackBilled(readBacks, rows, d);
  }
  return total;
}

/**
 * Over a folder's sessions, for one strategy's replay `entry` (its moments and request rows):
 * lines out of view (same task, or `acrossTasks`), searches (found in the first results), reads,
 * their tokens and the billed tokens they add per discount.
 */
export async function searchReadBacksOver(cli, core, sessions, entry, quotesOf, options) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-search-bench-'));
  try {
    let total = { ...NO_SEARCH_READ_BACKS, withSearch: {}, withoutSearch: {} };
    for (const session of sessions) {
      const moments = entry.moments(session.id);
      if (moments.length === 0) continue;
      const rows = entry.requests(session.id);
      const counted = await sessionReadBacks(
        cli,
        core,
        root,
        session,
        moments,
        quotesOf(session),
        options,
        rows,
      );
      total = addSearchReadBacks(total, counted);
    }
    return total;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * `results.searchReadBacks[folder][name][scope]` and `results.searchTotals[folder][name]` (billed
 * totals of the same replay), printed with the goals of issue 32 on effective billed.
 */
export function printSearchReadBacks(results, log) {
  const discounts = DISCOUNTS;
  log(
    "\nRead-backs of the lines out of view (issue 32), task starts (cold, 8 chained): with search_tool_outputs (one search per line, a distinctive identifier as query, the real search over the replay's stored outputs) and without (one read_tool_output per output holding such lines)",
  );
  const header = [
    'folder',
    'quoted by',
    'strategy',
    'out of view',
    'searches (found)',
    'tokens',
    'reads',
    'tokens',
  ];
  for (const d of discounts)
    header.push(`billed @${d}`, `eff. search @${d}`, `eff. no search @${d}`, 'vs gemini-cli');
  const rows = [header];
  const folders = Object.keys(results.searchReadBacks);
  const scopes = { ...results.searchReadBacks };
  const totals = { ...results.searchTotals };
  const names = Object.keys(results.searchReadBacks[folders[0]]);
  scopes['both folders'] = Object.fromEntries(
    names.map((name) => [
      name,
      Object.fromEntries(
        Object.keys(results.searchReadBacks[folders[0]][name]).map((scope) => [
          scope,
          folders.map((f) => results.searchReadBacks[f][name][scope]).reduce(addSearchReadBacks),
        ]),
      ),
    ]),
  );
  totals['both folders'] = Object.fromEntries(
    names.map((name) => [
      name,
      folders.map((f) => results.searchTotals[f][name]).reduce(mergeTotals),
    ]),
  );
  const goals = [];
  for (const [folder, byName] of Object.entries(scopes)) {
    for (const scope of Object.keys(byName[names[0]])) {
      const theirs = (d) =>
        billed(totals[folder]['gemini-cli'], d) +
        (byName['gemini-cli'][scope].withoutSearch[d] ?? 0);
      for (const name of names) {
        const c = byName[name][scope];
        const row = [
          folder,
          scope,
          name,
          integer(c.lines),
          `${integer(c.searches)} (${integer(c.found)})`,
          integer(c.searchTokens),
          integer(c.reads),
          integer(c.readTokens),
        ];
        for (const d of discounts) {
          const base = billed(totals[folder][name], d);
          const withSearch = base + (c.withSearch[d] ?? 0);
          const without = base + (c.withoutSearch[d] ?? 0);
          // gemini-cli offers no search: it is compared by its reads.
          const mine = name === 'gemini-cli' ? without : withSearch;
          row.push(
            integer(base),
            integer(withSearch),
            integer(without),
            `${(mine / theirs(d)).toFixed(3)}x`,
          );
        }
        rows.push(row);
      }
      if (folder === 'both folders' && scope === 'same task') {
        const ratio = (d) =>
          (billed(totals[folder].toolmask, d) + (byName.toolmask[scope].withSearch[d] ?? 0)) /
          theirs(d);
        const [low, high] = discounts;
        goals.push(
          `effective billed, cold task starts, every read-back counted: ${ratio(low).toFixed(3)}x at ${low} (goal 0.85x) and ${ratio(high).toFixed(3)}x at ${high} (goal 0.87x) of gemini-cli: ${ratio(low) <= 0.85 && ratio(high) <= 0.87 ? 'met' : 'NOT met'}`,
        );
      }
    }
  }
  log(formatTable(rows));
  log('Goal (issue 32):');
  for (const goal of goals) log(`  ${goal}`);
}
