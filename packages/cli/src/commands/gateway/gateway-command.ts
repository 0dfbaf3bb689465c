/** Declares `toolmask gateway` (options, help, examples) and hands over to `runGateway`. */
import { Command } from 'commander';
import type { CliIo } from '../../cli-io.js';
import { integerInRange } from '../../option-parsers.js';
import { withListenOptions } from '../listen-options.js';
import { DEFAULT_PORT } from '@toolmask/gateway/defaults';
import type { GatewayCommandOptions } from './gateway-options.js';

// Bounds that keep each value meaningful once multiplied out: a body is held whole in memory, and
// Node's largest buffer is 4 GiB; a budget past 1 TiB is no bound on any machine this runs on;
// more than 100 years of days makes a date JavaScript cannot hold ("Invalid time value").
const parseBodyMb = integerInRange(1, 4096, 'a number of MiB from 1 to 4096');
const parseInFlightMb = integerInRange(1, 1_048_576, 'a number of MiB from 1 to 1048576');
const parseRetentionDays = integerInRange(
  0,
  36_500,
  'a number of days from 0 (keep everything) to 36500',
);

const EXAMPLES = `
Examples:
  $ toolmask gateway
      on http://127.0.0.1:8787, in front of the public Gemini, Vertex and Code Assist APIs
  $ toolmask gateway --port 0 --openai-upstream https://dashscope.aliyuncs.com/compatible-mode/v1
  $ TOOLMASK_GATEWAY_TOKEN=$(openssl rand -hex 16) toolmask gateway --host 0.0.0.0
  $ toolmask gateway --store redis://10.0.0.5:6379 --outputs s3://team-outputs/toolmask \\
      --provider-key-env GEMINI_API_KEY --admin-key-env TOOLMASK_ADMIN_KEY --host 0.0.0.0
      one replica of a team gateway (docs/team.md); make keys with \`toolmask keys create\`

Point a client at it: GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:8787/gemini (API key),
GOOGLE_VERTEX_BASE_URL=http://127.0.0.1:8787/vertex, CODE_ASSIST_ENDPOINT=http://127.0.0.1:8787/code-assist,
OPENAI_BASE_URL=http://127.0.0.1:8787/openai/v1 (chat completions and Responses),
ANTHROPIC_BASE_URL=http://127.0.0.1:8787/anthropic. Read-back over MCP: http://127.0.0.1:8787/mcp.
Dashboard: http://127.0.0.1:8787/ (with --auth-token, open it once as /?token=<token>);
Prometheus metrics: /metrics. docs/dashboard.md
Or let a launcher (\`toolmask gemini\`, \`qwen\`, \`claude\`, \`codex\`, \`opencode\`) do all of that for one run.
Exit codes: 0 stopped by SIGINT/SIGTERM, 1 failure (a gateway already running for the state
folder included), 2 bad usage (a port in use included).`;

/** The options of a team gateway's replica (docs/team.md). */
function withTeamOptions(command: Command): Command {
  return command
    .option(
      '--store <url>',
      'a team gateway: its state in Redis, redis://HOST:PORT[/DB], shared by every replica (docs/team.md); each request then needs a key',
    )
    .option(
      '--outputs <where>',
      "a team gateway's offloaded outputs: s3://BUCKET/PREFIX or a folder every replica mounts (default: Redis)",
    )
    .option('--s3-endpoint <url>', 'an S3-compatible store for --outputs s3://... (e.g. MinIO)')
    .option(
      '--provider-key-env <name>',
      'the environment variable holding the Gemini API key sent upstream in place of virtual keys (toolmask keys create); one per API: gemini=NAME,anthropic=NAME2,openai=NAME3',
    )
    .option(
      '--admin-key-env <name>',
      "the environment variable holding the admin key: it reads every person's state on /api, /mcp and the dashboard",
    )
    .option(
      '--cookie-secret-env <name>',
      'the environment variable holding the secret every replica signs dashboard cookies with (default: derived from the admin key)',
    )
    .option(
      '--instance <name>',
      "this replica's name: the instance label of its metrics (default HOST:PORT)",
    )
    .option(
      '--public-host <names>',
      'a replica bound to loopback behind a proxy on its machine: the host names (comma-separated) its clients address, answered besides loopback ones',
    )
    .option(
      '--behind-tls',
      'a TLS terminator is in front of this replica: no warning when it is bound beyond loopback',
    );
}

export function createGatewayCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  const command = new Command('gateway').description(
    'Run the local gateway: masks old tool outputs in every model request of the stock agent commands (gemini, qwen, claude, codex, opencode), offers read-back over MCP, records real usage.',
  );
  const gateway = withListenOptions(command, DEFAULT_PORT)
    .option(
      '--upstream <url>',
      'Gemini API upstream (default https://generativelanguage.googleapis.com)',
    )
    .option(
      '--vertex-upstream <url>',
      'Vertex AI upstream (default: the regional endpoint of each request)',
    )
    .option(
      '--code-assist-upstream <url>',
      'Code Assist upstream (default https://cloudcode-pa.googleapis.com)',
    )
    .option(
      '--openai-upstream <url>',
      'OpenAI-compatible upstream, e.g. https://host/v1 (no default)',
    )
    .option(
      '--anthropic-upstream <url>',
      'Anthropic Messages API upstream, without /v1 (default https://api.anthropic.com)',
    )
    .option(
      '--state-dir <dir>',
      'decisions, usage records and offloaded outputs (default ~/.toolmask/gateway)',
    )
    .option(
      '--settings <file>',
      'settings.json to read experimental.toolOutputMasking from (default ~/.gemini/settings.json)',
    )
    .option(
      '--otlp-endpoint <url>',
      'also export metrics and events over OTLP/HTTP, e.g. http://127.0.0.1:4318',
    )
    .option('--max-body-mb <mb>', 'largest request body accepted', parseBodyMb, 64)
    .option(
      '--max-in-flight-mb <mb>',
      'request bodies held at once, across requests; past it a request is answered 503 with Retry-After (default --max-body-mb)',
      parseInFlightMb,
    )
    .option(
      '--retention-days <days>',
      'days of history kept in the state folder (usage records, decisions, offloaded outputs); 0 keeps everything',
      parseRetentionDays,
      30,
    )
    .option('--keep-client-masking', "leave gemini-cli's own masking on for Code Assist sessions");
  return withTeamOptions(gateway)
    .option(
      '--allow-second',
      'start even when a gateway already runs for this state folder (without it: exit 1, naming that one)',
    )
    .addHelpText('after', EXAMPLES)
    .action(async (options: GatewayCommandOptions) => {
      // Loaded when run: the gateway's code costs every other command a second at start.
      const { runGateway } = await import('./run-gateway.js');
      setExitCode(await runGateway(options, io));
    });
}
