/**
 * Another local account can reach the gateway's loopback port but must not read the person's
 * outputs: what reads them (`/mcp`, `/api`, the dashboard) needs the access secret, which lives
 * in the person's 0700 state folder. The test plays that account for real: as root it starts a
 * child process as `nobody` (uid 65534), which tries to read the secret and to call the gateway
 * without it. Elsewhere (not root) it skips, saying why: only root can start a process as
 * another user.
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { geminiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import { ACCESS_SECRET_FILE } from '../state/access-secret.js';
import {
  gatewayFixture,
  post,
  shellOutput,
  startTestGateway,
} from '../test-utils/gemini-client.js';

const cleanups = cleanUpAfterEach();
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

if (!isRoot) {
  console.warn(
    '[toolmask] other-account test skipped: it starts a process as uid 65534, which only root can (CI runs as root)',
  );
}

/** What the other account's process tries, and what it saw, as JSON on stdout. */
const ATTEMPT = `
const fs = require('node:fs');
const [url, secretFile, outputFile] = process.argv.slice(1);
(async () => {
  const seen = {};
  try { fs.readFileSync(secretFile, 'utf8'); seen.secret = 'read'; } catch (e) { seen.secret = e.code; }
  try { fs.readFileSync(outputFile, 'utf8'); seen.outputFile = 'read'; } catch (e) { seen.outputFile = e.code; }
  const mcp = await fetch(url + '/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_tool_output', arguments: { file: outputFile } } }),
  });
  seen.mcp = mcp.status;
  seen.sessions = (await fetch(url + '/api/sessions')).status;
  seen.outputs = (await fetch(url + '/api/outputs?session=x&file=' + encodeURIComponent(outputFile))).status;
  seen.page = (await fetch(url + '/')).status;
  console.log(JSON.stringify(seen));
})().catch((error) => { console.log(JSON.stringify({ error: String(error) })); });
`;

describe('another local account', () => {
  it.skipIf(!isRoot)('reaches the port but reads nothing of the person’s outputs', async () => {
    const fixture = await gatewayFixture({
      toolProtectionThreshold: 2_000,
      minPrunableTokensThreshold: 1_000,
    });
    cleanups.push(fixture.cleanup);
    const upstream = await startFakeUpstream(() => geminiAnswer([{ text: 'ok' }]));
    cleanups.push(() => upstream.close());
    const running = await startTestGateway({
      stateDir: fixture.stateDir,
      settingsFile: fixture.settingsFile,
      upstreams: { gemini: upstream.url },
    });
    cleanups.push(() => running.close());
    // A conversation whose old outputs get masked: there is something to steal.
    const contents: unknown[] = [{ role: 'user', parts: [{ text: 'build' }] }];
    for (let step = 0; step < 4; step++) {
      contents.push(
        {
          role: 'model',
          parts: [{ functionCall: { id: `c${step}`, name: 'run_shell_command', args: {} } }],
        },
        {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: `c${step}`,
                name: 'run_shell_command',
                response: { output: shellOutput(`c${step}`) },
              },
            },
          ],
        },
      );
      await post(`${running.url}/v1beta/models/m:generateContent`, { contents });
    }
    const sent = upstream.requests.at(-1)!.raw.toString('utf8');
    const outputFile = JSON.parse(`"${/file=\\"([^\\]+)\\"/.exec(sent)![1]!}"`) as string;

    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['-e', ATTEMPT, running.url, path.join(fixture.stateDir, ACCESS_SECRET_FILE), outputFile],
        { uid: NOBODY, gid: NOBODY, cwd: '/', timeout: 20_000 },
        (error, out) => (error ? reject(error) : resolve(out)),
      );
    });
    expect(JSON.parse(stdout)).toEqual({
      // The files stay closed to it (0700 folder), and the gateway asks it for the secret.
      secret: 'EACCES',
      outputFile: 'EACCES',
      mcp: 401,
      sessions: 401,
      outputs: 401,
      page: 401,
    });
  });
});
