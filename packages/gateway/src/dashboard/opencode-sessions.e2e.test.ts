/**
 * The real `opencode run` (npm opencode-ai 1.18.33) through the gateway's chat completions front,
 * against a scripted loopback fake: its title call (a plain chat with the "title generator"
 * system prompt) is one side request of its session, not a session of its own, and the session is
 * named by the person's prompt and the project folder opencode tells its model (issue 35, item 9).
 */
import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import {
  openAiAnswer,
  startFakeUpstream,
  type RecordedUpstreamRequest,
} from '@toolmask/test-support/fake-upstream';
import { REPO_BIN } from '@toolmask/test-support/run-toolmask';
import { opencodeOfflineEnv } from '@toolmask/test-support/opencode-env';
import {
  gatewayFixture,
  ownerFetch,
  settled,
  startTestGateway,
} from '../test-utils/gemini-client.js';
import type { SessionsReport } from './api-types.js';

const cleanups = cleanUpAfterEach();
const PROMPT = 'Count the rows of the table, please.';

type Body = { messages?: Array<{ role: string }>; tools?: unknown[] };

/** A `bash` call, then the answer; the title call gets a title. */
function scripted(request: RecordedUpstreamRequest) {
  const body = (request.json ?? {}) as Body;
  if (!body.tools?.length) return openAiAnswer({ content: 'Counting rows' }, { prompt: 300 });
  const done = (body.messages ?? []).some((message) => message.role === 'tool');
  if (done) return openAiAnswer({ content: 'There are 3 rows.' }, { prompt: 2_000 });
  const args = JSON.stringify({ command: 'printf "a\\nb\\nc\\n"', description: 'rows' });
  return openAiAnswer(
    { toolCalls: [{ id: 'call_1', name: 'bash', arguments: args }] },
    { prompt: 1_500 },
  );
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe.skipIf(!existsSync(path.join(REPO_BIN, 'opencode')))('opencode on the dashboard', () => {
  it('one session with its title call folded in, named by its prompt and folder', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-opencode-sessions-'));
    cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
    const home = path.join(root, 'home');
    const project = path.join(root, 'project');
    await fs.mkdir(home);
    await fs.mkdir(path.join(project, '.git'), { recursive: true });
    const upstream = await startFakeUpstream(scripted);
    cleanups.push(() => upstream.close());
    const fixture = await gatewayFixture({});
    cleanups.push(fixture.cleanup);
    const running = await startTestGateway({
      stateDir: fixture.stateDir,
      settingsFile: fixture.settingsFile,
      upstreams: { openai: `${upstream.url}/v1` },
    });
    cleanups.push(() => running.close());
    const config = {
      $schema: 'https://opencode.ai/config.json',
      provider: {
        fake: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Fake',
          options: { baseURL: `${running.url}/v1`, apiKey: 'fake-openai-key' },
          models: { m1: { name: 'm1' } },
        },
      },
      model: 'fake/m1',
    };
    await fs.writeFile(path.join(project, 'opencode.json'), JSON.stringify(config));
    const result = await run(path.join(REPO_BIN, 'opencode'), ['run', PROMPT], project, {
      ...opencodeOfflineEnv(home, project),
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain('There are 3 rows.');
    // The title call went through the same front, as a plain chat without tools.
    const titles = upstream.requests.filter((request) => !(request.json as Body).tools?.length);
    expect(titles.length).toBe(1);
    // `opencode run` sends its words in quotes; the dashboard shows the prompt without them.
    expect(JSON.stringify(upstream.requests.at(-1)?.json)).toContain(`"\\"${PROMPT}\\""`);

    await settled(running);
    const answer = await ownerFetch(running, `${running.url}/api/sessions`);
    const report = (await answer.json()) as SessionsReport;
    expect(report.sessions).toHaveLength(1);
    expect(report.sessions[0]).toMatchObject({
      client: 'opencode',
      requests: upstream.requests.length,
      sideRequests: 1,
      prompt: PROMPT,
      folder: project,
    });
  });
});
