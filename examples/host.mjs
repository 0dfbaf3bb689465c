#!/usr/bin/env node
/**
 * A complete small agent on @google/gemini-cli-core with toolmask installed: it sends a prompt,
 * runs the tools the model asks for with core's own Scheduler (real tools), sends their results
 * back, and repeats until the model answers without a tool call. Before every model request
 * toolmask masks old bulky tool outputs; its notices go to stderr.
 *
 *   GEMINI_API_KEY=... node examples/host.mjs "Which files in this folder are the largest?"
 *   node examples/host.mjs --fake        # offline, against the project's scripted fake server
 *
 * Real mode works in the current folder (or --workspace DIR) with your gemini-cli settings and
 * GEMINI_API_KEY from the environment. This host cannot ask you to confirm a tool call, so core's
 * policy for a non-interactive host decides: a call it would ask about is refused (the model is
 * told why), the others run. --yolo lets every tool run without asking; use it only where the
 * model may change anything.
 *
 * --fake runs offline: a loopback fake Gemini API (packages/test-support/dist, so build first:
 * `npm run build`) plays a model that runs a few noisy commands in a temporary workspace, with a
 * temporary GEMINI_CLI_HOME. The model's answers are scripted; the tools, the client and toolmask
 * are real. It prints what the fake server received, request by request.
 *
 * It lives at the repository root rather than in packages/cli: it shows how a host uses
 * @toolmask/core (the CLI plays no part), and --fake needs the project's fake server from core's
 * build, which no tarball ships.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';

const USAGE = `usage: node examples/host.mjs [--fake] [--yolo] [--workspace DIR] [PROMPT]

  PROMPT           what to ask (default with --fake: a scripted check of a build log)
  --fake           run offline against the project's scripted fake Gemini server
  --yolo           let every tool run without asking (without it, calls core's policy
                   would ask you to confirm are refused: this host cannot ask)
  --workspace DIR  the folder the agent works in (default: the current folder)

GEMINI_API_KEY must be set unless --fake.`;

const MAX_TURNS = 20;

function fail(message, code = 2) {
  process.stderr.write(`host: ${message}\n`);
  process.exit(code);
}

let options;
try {
  options = parseArgs({
    allowPositionals: true,
    options: {
      fake: { type: 'boolean' },
      yolo: { type: 'boolean' },
      workspace: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
} catch (error) {
  fail(`${error.message}\n${USAGE}`);
}
if (options.values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const fake = options.values.fake === true;
const prompt =
  options.positionals.join(' ').trim() ||
  (fake ? 'The build is slow and noisy. Find out why, then say what you found.' : '');
if (!prompt) fail(`no prompt given\n${USAGE}`);
const apiKey = process.env.GEMINI_API_KEY;
if (!fake && !apiKey) fail('GEMINI_API_KEY is not set (or run with --fake to try it offline)');

/** The offline setup: a temporary home and workspace, and the scripted fake server. */
async function startFakeWorld() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-host-')));
  const home = path.join(root, 'home');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(home);
  fs.mkdirSync(workspace);
  // Read lazily by core: set before the Config exists so nothing touches your ~/.gemini.
  process.env.GEMINI_CLI_HOME = home;
  // Five requests: the default warm rule (pay-back) keeps a warm cache whole this early, since
  // breaking it would cost more than the session has left to save. The floor rule masks, to show
  // what masking does (docs/settings.md, warmRule).
  fs.mkdirSync(path.join(home, '.gemini'));
  fs.writeFileSync(
    path.join(home, '.gemini', 'settings.json'),
    JSON.stringify({ experimental: { toolOutputMasking: { warmRule: 'floor' } } }),
  );
  const log = Array.from(
    { length: 3000 },
    (_, i) =>
      `2026-01-05T10:${String(i % 60).padStart(2, '0')}:00Z webpack compiled module ${i} in ${(i * 7) % 400} ms`,
  );
  fs.writeFileSync(path.join(workspace, 'build.log'), `${log.join('\n')}\n`);
  const serverModule = new URL(
    '../packages/test-support/dist/fake-gemini-server.js',
    import.meta.url,
  );
  if (!fs.existsSync(serverModule))
    fail('the fake server is not built yet: run `npm run build` first');
  const { startFakeGeminiServer } = await import(serverModule.href);
  const call = (id, name, args, text) => ({
    parts: [{ text }, { functionCall: { id, name, args } }],
  });
  const server = await startFakeGeminiServer({
    script: [
      call('c1', 'run_shell_command', { command: 'cat build.log' }, 'Reading the whole build log.'),
      call('c2', 'run_shell_command', { command: 'seq 1 9000' }, 'Checking how many steps ran.'),
      call(
        'c3',
        'read_file',
        { file_path: path.join(workspace, 'build.log') },
        'Reading it again.',
      ),
      call(
        'c4',
        'run_shell_command',
        { command: 'grep -c " 3[0-9][0-9] ms" build.log' },
        'Counting slow modules.',
      ),
      { parts: [{ text: 'Most of the time goes to modules that take 300-399 ms to compile.' }] },
    ],
  });
  return {
    server,
    workspace,
    async close() {
      await server.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

const world = fake ? await startFakeWorld() : undefined;
const workspace = path.resolve(world?.workspace ?? options.values.workspace ?? process.cwd());

// Core prints debug notes (routing, policy, memory discovery) with console.log, .info and .debug
// even with debugMode off. A host shows its own output, so those stay out of the terminal;
// warnings and errors still show.
for (const method of ['log', 'info', 'debug']) console[method] = () => {};

// Imported after GEMINI_CLI_HOME is set (core reads it lazily, but only once).
const { ApprovalMode, AuthType, Config, GeminiEventType, Scheduler } =
  await import('@google/gemini-cli-core');
const { coreMaskingOffParameters, installToolOutputMasking } = await import('@toolmask/core');

const config = new Config({
  sessionId: randomUUID(),
  targetDir: workspace,
  cwd: workspace,
  debugMode: false,
  model: 'gemini-2.5-flash',
  interactive: false,
  usageStatisticsEnabled: false,
  // Offline: the scripted commands are ours, so let them run; fail fast, no retries.
  approvalMode: fake || options.values.yolo ? ApprovalMode.YOLO : ApprovalMode.DEFAULT,
  ...(fake ? { maxAttempts: 1, useRipgrep: false } : {}),
  // Keep core's own masking pass off from the first request (toolmask replaces it).
  contextManagement: coreMaskingOffParameters(),
});
await config.initialize();
await config.refreshAuth(AuthType.USE_GEMINI, apiKey ?? 'fake-api-key', world?.server.baseUrl);

let masked = 0;
const masking = installToolOutputMasking(config, {
  onNotice: (line) => process.stderr.write(`${line}\n`),
  onPass: (pass) => (masked += pass.result.maskedCount),
});
const scheduler = new Scheduler({
  context: config,
  messageBus: config.getMessageBus(),
  getPreferredEditor: () => undefined,
  schedulerId: 'example-host',
});

const controller = new AbortController();
process.once('SIGINT', () => controller.abort());
const client = config.getGeminiClient();
const promptId = `${config.getSessionId()}-1`;
let request = [{ text: prompt }];
let exitCode = 0;
try {
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    const calls = [];
    for await (const event of client.sendMessageStream(request, controller.signal, promptId)) {
      if (event.type === GeminiEventType.Content) process.stdout.write(event.value);
      if (event.type === GeminiEventType.ToolCallRequest) calls.push(event.value);
      if (event.type === GeminiEventType.Error) {
        throw new Error(event.value.error?.message ?? JSON.stringify(event.value.error));
      }
    }
    process.stdout.write('\n');
    if (calls.length === 0) break;
    const completed = await scheduler.schedule(calls, controller.signal);
    for (const done of completed) {
      const size = JSON.stringify(done.response.responseParts).length;
      process.stderr.write(`host: ${done.request.name} ${done.status} (${size} characters)\n`);
    }
    request = completed.flatMap((done) => done.response.responseParts);
  }
} catch (error) {
  process.stderr.write(`host: ${error instanceof Error ? error.message : String(error)}\n`);
  exitCode = 1;
} finally {
  masking.uninstall();
  if (world) {
    const sizes = world.server.modelRequests().map((sent) => sent.bytes.toLocaleString('en-US'));
    process.stderr.write(
      `host: the fake server received ${sizes.length} model requests of ${sizes.join(', ')} bytes; ` +
        `toolmask masked ${masked} tool output${masked === 1 ? '' : 's'}\n`,
    );
    await world.close();
  }
}
process.exitCode = exitCode;
