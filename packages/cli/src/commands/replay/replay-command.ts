/** Declares `toolmask replay` (options, help, examples) and hands over to `runReplay`. */
import { Command } from 'commander';
import type { CliIo } from '../../cli-io.js';
import { DEFAULT_CACHE_DISCOUNT } from '../../replay/replay-defaults.js';
import { parseFraction, parseNameList, parsePositiveInteger } from '../../option-parsers.js';
import { parsePricing, parseSince } from './replay-filters.js';
import { addSettingFlags } from './setting-flags.js';
import type { ReplayCommandOptions } from './replay-options.js';

const EXAMPLES = `
Examples:
  $ toolmask replay --compare
      the built-in example session, side by side: none, toolmask, gemini-cli
  $ toolmask replay --concat 8 --compare ../shared/traces/mini-swe-agent-gemini3pro
      a directory of recorded sessions, chained 8 at a time into long sessions
  $ toolmask replay --compare ../shared/traces
      every session file under a folder, subfolders included
  $ toolmask replay ~/.gemini/tmp/my-project/chats/session-2026-01-05T10-12-ab12cd34.jsonl
      a gemini-cli chat recording
  $ toolmask replay --since 30d ~/.claude/projects
      your last month of Claude Code, priced with Anthropic's cache rules
  $ toolmask replay --since 30d ~/.codex/sessions
      your last month of Codex (OpenAI's cache rules)
  $ toolmask replay --since 30d ~/.local/share/opencode
      your last month of OpenCode (its database; or an \`opencode export\` file)
  $ toolmask replay --since 30d ~/.qwen/projects
      your last month of qwen-code (its chat recordings)
  $ toolmask replay --settings ~/.gemini/settings.json --min-prunable 20000 session.json
      tune settings: file first, flags on top
  $ toolmask replay --compare --json session.json > replay.json
  $ toolmask replay --compare --report replay.html --keep ./replay-outputs session.json

Inputs: JSON arrays of Content, gemini-cli chat recordings (.jsonl, or older .json), OpenAI-style
transcripts, Claude Code transcripts, Codex session files, OpenCode session exports, or folders of
them (their *.json and *.jsonl files, subfolders included, sorted by path; other JSON files are
skipped with a warning); the format is told by content. Without PATH: the built-in example.
Exit codes: 0 done, 1 failure, 2 bad usage or bad input (the good inputs are still replayed).`;

export function createReplayCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  const command = new Command('replay')
    .description(
      'Replay recorded sessions request by request through the masking pass and show, per strategy, what would have been sent to the model.',
    )
    .argument('[paths...]', 'session files or folders (default: the built-in example)')
    .option('--no-recursive', 'read only the top level of a folder, not its subfolders')
    .option('--compare', 'side by side: none, toolmask and gemini-cli (default: none and toolmask)')
    .option(
      '--strategies <names>',
      'comma-separated strategies to run: none, toolmask, gemini-cli',
      parseNameList,
    )
    .option(
      '--concat <n>',
      'chain N sessions one after another into one long session',
      parsePositiveInteger,
      1,
    )
    .option(
      '--cache-discount <fraction>',
      'price of a cached token relative to an uncached one',
      parseFraction,
      DEFAULT_CACHE_DISCOUNT,
    )
    .option(
      '--pricing <provider>',
      "whose prompt-cache rules price the run: anthropic (cache writes 1.25x), openai or gemini (default: the inputs' provider)",
      parsePricing,
    )
    .option(
      '--since <age|date>',
      'replay only sessions active since then: 30d, 12h, 2w, or a date such as 2026-11-01',
      parseSince,
    )
    .option('--warm-task-starts', 'price the first request of each chained task as cache-warm')
    .option(
      '--settings <file>',
      'gemini-cli settings.json to read experimental.toolOutputMasking from',
    );
  // The flags that tune toolmask, one per declared setting (see setting-flags.ts).
  addSettingFlags(command);
  return command
    .option('--json', 'print the full result as JSON (every figure, per strategy and per request)')
    .option('--report <file>', 'write a self-contained HTML report with charts')
    .option('--keep <dir>', 'keep the offloaded outputs in DIR (one folder per strategy)')
    .option('--force', 'with --keep: write into a folder that is not empty')
    .option(
      '-v, --verbose',
      'list every request where a strategy changed the history, with its notice',
    )
    .option('--no-chart', 'leave out the per-request chart')
    .addHelpText('after', EXAMPLES)
    .action(async (paths: string[], options: ReplayCommandOptions) => {
      // Loaded when run: the replay's engine and core cost every other command at start.
      const { runReplay } = await import('./run-replay.js');
      setExitCode(await runReplay(paths, options, io));
    });
}
