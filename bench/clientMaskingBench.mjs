/**
 * Section 4d of `npm run bench`: toolmask and gemini-cli's own masking, together or not, with the
 * real `gemini` binary (npm @google/gemini-cli 0.61.0) on one scripted session: 14 bulky shell
 * outputs against a loopback fake of the Gemini API that plays a prefix cache. Three runs:
 *
 *   - gemini alone (its own masking, no toolmask);
 *   - `toolmask gemini` with gemini's own masking left on as well (`--keep-client-masking`);
 *   - `toolmask gemini` as shipped (gemini's own masking off for the run).
 *
 * Per run: requests, prefix breaks (a request whose unchanged prefix is shorter than the previous
 * request), prompt and billed tokens (uncached + 0.1 x cached, the fake's 4-characters-a-token
 * count), and the masked outputs of each kind in the last request. Needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(root, 'packages/cli/dist/index.js');
const GEMINI = path.join(root, 'node_modules/@google/gemini-cli/bundle/gemini.js');
const STEPS = 14;

const tokensOf = (text) => Math.ceil(text.length / 4);

async function scriptedUpstream() {
  const requests = [];
  let previous = [];
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      if (!request.url.includes(':streamGenerateContent')) {
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      const contents = JSON.parse(Buffer.concat(chunks).toString('utf8')).contents ?? [];
      const entries = contents.map((content) => JSON.stringify(content));
      let common = 0;
      while (
        common < previous.length &&
        common < entries.length &&
        previous[common] === entries[common]
      )
        common++;
      const prompt = entries.reduce((sum, entry) => sum + tokensOf(entry), 0);
      const cached = entries.slice(0, common).reduce((sum, entry) => sum + tokensOf(entry), 0);
      requests.push({
        prompt,
        cached,
        broke: previous.length > 0 && common < previous.length,
        contents,
      });
      previous = entries;
      const outputs = contents.flatMap((content) =>
        content.parts.filter((part) => part.functionResponse),
      );
      const step = outputs.length;
      const parts =
        step < STEPS
          ? [
              {
                functionCall: {
                  name: 'run_shell_command',
                  args: {
                    command: `seq ${step * 10_000 + 1} ${step * 10_000 + 2_600} | sed 's/^/row /'`,
                    description: `step ${step}`,
                  },
                },
              },
            ]
          : [{ text: 'done' }];
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(
        `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: prompt, ...(cached ? { cachedContentTokenCount: cached } : {}), candidatesTokenCount: 5 } })}\r\n\r\n`,
      );
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => new Promise((r) => server.close(r)),
  };
}

function run(args, env, cwd) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.resume();
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

async function session(mode) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-client-masking-'));
  const home = path.join(scratch, 'home');
  const project = path.join(scratch, 'project');
  fs.mkdirSync(path.join(home, '.gemini'), { recursive: true });
  fs.mkdirSync(project);
  fs.writeFileSync(
    path.join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      privacy: { usageStatisticsEnabled: false },
      security: { auth: { selectedType: 'gemini-api-key' } },
    }),
  );
  const upstream = await scriptedUpstream();
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: scratch,
    TERM: 'dumb',
    GEMINI_API_KEY: 'fake',
    GOOGLE_GEMINI_BASE_URL: upstream.url,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    GEMINI_CLI_NO_RELAUNCH: 'true',
  };
  const geminiArgs = ['-m', 'gemini-2.5-flash', '--yolo', '-p', 'Run the build steps.'];
  const args =
    mode === 'gemini alone'
      ? [GEMINI, ...geminiArgs]
      : [
          CLI,
          'gemini',
          '--gemini-bin',
          GEMINI,
          '--state-dir',
          path.join(scratch, 'state'),
          ...(mode.includes('kept on') ? ['--keep-client-masking'] : []),
          ...geminiArgs,
        ];
  const result = await run(args, env, project);
  await upstream.close();
  fs.rmSync(scratch, { recursive: true, force: true });
  const last = upstream.requests.at(-1)?.contents ?? [];
  const outputs = last
    .flatMap((content) => content.parts.filter((part) => part.functionResponse))
    .map((part) => part.functionResponse.response?.output ?? '');
  return {
    mode,
    code: result.code,
    requests: upstream.requests.length,
    breaks: upstream.requests.filter((request) => request.broke).length,
    prompt: upstream.requests.reduce((sum, request) => sum + request.prompt, 0),
    billed: upstream.requests.reduce(
      (sum, request) => sum + (request.prompt - request.cached) + 0.1 * request.cached,
      0,
    ),
    ours: outputs.filter((output) => output.startsWith('<tool_output_masked lines=')).length,
    theirs: outputs.filter((output) => output.startsWith('<tool_output_masked>')).length,
  };
}

export async function runClientMaskingBench() {
  const rows = [];
  for (const mode of [
    'gemini alone',
    'toolmask gemini, gemini masking kept on',
    'toolmask gemini (gemini masking off)',
  ]) {
    rows.push(await session(mode));
  }
  console.log(
    `\n### 4d. gemini's own masking with and without toolmask (real gemini 0.61.0, ${STEPS} shell outputs of ~26 KB)`,
  );
  console.log(
    '| run | exit | requests | prefix breaks | prompt tokens | billed tokens (0.1) | masked by toolmask | masked by gemini |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const row of rows) {
    console.log(
      `| ${row.mode} | ${row.code} | ${row.requests} | ${row.breaks} | ${row.prompt.toLocaleString('en-US')} | ${Math.round(row.billed).toLocaleString('en-US')} | ${row.ours} | ${row.theirs} |`,
    );
  }
  return rows;
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]);
if (isMain) await runClientMaskingBench();
