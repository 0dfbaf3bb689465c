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

/** Lines out of view over `sessions`, with each session's moments from `momentsOf`. */
export async function outOfViewOver(cli, sessions, momentsOf, quotesOf) {
  let counts = { ...cli.NOTHING_OUT_OF_VIEW };
  for (const session of sessions) {
    const moments = await momentsOf(session);
    counts = cli.addOutOfView(counts, cli.outOfView(session, moments, quotesOf(session)));
  }
  return counts;
}

/** `results.outOfView[folder][setting][strategy]`, printed with the goal of issue 32. */
export function printOutOfView(results, log) {
  log(
    '\nLines out of view (issue 32): distinctive lines of masked outputs quoted later, shown by the snippet, and shown by nothing in the request at the moment of masking',
  );
  const rows = [
    ['folder', 'setting', 'strategy', 'masked', 'quoted', 'in snippet', 'out of view'],
  ];
  const goals = [];
  for (const [folder, bySetting] of Object.entries(results.outOfView)) {
    for (const [setting, byName] of Object.entries(bySetting)) {
      for (const [name, counts] of Object.entries(byName)) {
        rows.push([
          folder,
          setting,
          name,
          integer(counts.outputsMasked),
          integer(counts.linesQuoted),
          integer(counts.linesVisible),
          integer(counts.linesOutOfView),
        ]);
      }
      const ours = byName.toolmask.linesOutOfView;
      const theirs = byName['gemini-cli'].linesOutOfView;
      goals.push(
        `${folder}, ${setting}: toolmask ${ours} out of view against gemini-cli's ${theirs}: ${ours <= theirs ? 'met' : 'NOT met'}`,
      );
    }
  }
  log(formatTable(rows));
  log('Goal (issue 32): no more lines out of view than the built-in on each folder');
  for (const goal of goals) log(`  ${goal}`);
}
