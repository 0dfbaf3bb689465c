/**
 * Lines put out of view (issue 32): per folder, for toolmask and gemini-cli's built-in, the lines
 * of masked outputs that the recorded agent quotes later, that are distinctive (in at most two
 * outputs of their task) and the output's own (not written by the agent before), and of those how
 * many the snippet shows and how many nothing in the request shows at the moment of masking
 * (packages/cli/src/replay/metrics/out-of-view.ts). Counted on the same replays as information
 * kept: task starts (the cost replays, 8 tasks chained, cold task starts) and idle gaps inside
 * tasks. Each line out of view is one the agent would have to read back or search for.
 */
import { formatTable, integer } from './replayStudy.mjs';

/** Lines of each scope: quotes by the same task, and by any later task of the chain. */
export const SCOPES = { 'same task': {}, 'any later task': { acrossTasks: true } };

/**
 * Lines out of view over `sessions`, with each session's moments from `momentsOf`, per scope;
 * `examples` receives the lines only the wider scope finds.
 */
export async function outOfViewOver(cli, sessions, momentsOf, quotesOf, examples = []) {
  const byScope = {};
  for (const [scope, options] of Object.entries(SCOPES)) {
    let counts = { ...cli.NOTHING_OUT_OF_VIEW };
    for (const session of sessions) {
      const moments = await momentsOf(session);
      const found = [];
      const counted = cli.outOfView(session, moments, quotesOf(session), {
        ...options,
        onOutOfView: (line) => found.push(line),
      });
      counts = cli.addOutOfView(counts, counted);
      if (options.acrossTasks) examples.push(...found);
    }
    byScope[scope] = counts;
  }
  return byScope;
}

/** `results.outOfView[folder][setting][strategy]`, printed with the goal of issue 32. */
export function printOutOfView(results, log) {
  log(
    '\nLines out of view (issue 32): distinctive lines of masked outputs quoted later, shown by the snippet, and shown by nothing in the request at the moment of masking',
  );
  const rows = [
    ['folder', 'setting', 'quoted by', 'strategy', 'masked', 'quoted', 'in snippet', 'out of view'],
  ];
  const goals = [];
  for (const [folder, bySetting] of Object.entries(results.outOfView)) {
    for (const [setting, byName] of Object.entries(bySetting)) {
      for (const scope of Object.keys(SCOPES)) {
        for (const [name, byScope] of Object.entries(byName)) {
          const counts = byScope[scope];
          rows.push([
            folder,
            setting,
            scope,
            name,
            integer(counts.outputsMasked),
            integer(counts.linesQuoted),
            integer(counts.linesVisible),
            integer(counts.linesOutOfView),
          ]);
        }
      }
      const ours = byName.toolmask['same task'].linesOutOfView;
      const theirs = byName['gemini-cli']['same task'].linesOutOfView;
      goals.push(
        `${folder}, ${setting}: toolmask ${ours} out of view against gemini-cli's ${theirs}: ${ours <= theirs ? 'met' : 'NOT met'}`,
      );
    }
  }
  log(formatTable(rows));
  log(
    "Goal (issue 32): no more lines out of view than the built-in on each folder (quotes by the same task: a chained task was recorded as its own session and never saw an earlier task's outputs)",
  );
  for (const goal of goals) log(`  ${goal}`);
  const examples = [...new Set(results.outOfViewExamples ?? [])].slice(0, 8);
  if (examples.length > 0) {
    log('  Lines only a later task quotes (toolmask, out of view across tasks), the first few:');
    for (const line of examples)
      log(`    ${JSON.stringify(line.length > 110 ? `${line.slice(0, 110)}…` : line)}`);
  }
}
