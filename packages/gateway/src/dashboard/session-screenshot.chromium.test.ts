/**
 * The session page captured as a person would, with the `chromium` command itself (issue 35,
 * item 16): `chromium --headless --dump-dom` and `--screenshot` of `/?token=…#/session/<id>` take
 * the page at its load event. The session's route is in the address's fragment, which the server
 * never sees, so the page draws that first view before its load event: the DOM holds the
 * session's view, not "Loading…", and the screenshot is not the loading page's.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHROMIUM_PATH, chromiumAvailable } from '@toolmask/test-support/browser';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { geminiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import { listenGateway } from '../listen-gateway.js';
import { ownerHeaders } from '../test-utils/gemini-client.js';
import type { SessionsReport } from './api-types.js';

const cleanups = cleanUpAfterEach();

/** The `chromium` command, run without blocking: the gateway it reads serves from this process. */
function chromium(root: string, args: string[]): Promise<string> {
  const child = spawn(
    CHROMIUM_PATH,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      `--user-data-dir=${path.join(root, `profile-${Math.random().toString(36).slice(2)}`)}`,
      '--window-size=1200,900',
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve) => child.on('close', () => resolve(stdout)));
}

describe.skipIf(!chromiumAvailable)('the session page captured with chromium --headless', () => {
  it('shows the session, not "Loading…", at the load event', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-session-shot-'));
    cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
    const settingsFile = path.join(root, 'settings.json');
    await fs.writeFile(settingsFile, '{}');
    const upstream = await startFakeUpstream(() =>
      geminiAnswer([{ text: 'hi' }], { prompt: 2_000, cached: 1_500 }),
    );
    cleanups.push(() => upstream.close());
    const gateway = await listenGateway({
      port: 0,
      stateDir: path.join(root, 'state'),
      settingsFile,
      upstreams: { gemini: upstream.url },
    });
    cleanups.push(() => gateway.close());
    for (const text of ['one', 'two']) {
      const answer = await fetch(
        `${gateway.url}/gemini/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }] }),
        },
      );
      await answer.text();
    }
    const sessions = (await (
      await fetch(`${gateway.url}/api/sessions`, { headers: ownerHeaders(gateway) })
    ).json()) as SessionsReport;
    const id = sessions.sessions[0]!.id;
    const token = ownerHeaders(gateway)['x-toolmask-token'] ?? '';
    const address = `${gateway.url}/?token=${token}#/session/${encodeURIComponent(id)}`;

    const dom = await chromium(root, ['--dump-dom', address]);
    const view = /<main id="view"[^>]*>([\s\S]*?)<\/main>/.exec(dom)?.[1] ?? '';
    expect(view).not.toContain('Loading');
    expect(view).toContain('All sessions');
    expect(view).toContain('gemini-2.5-flash');

    const shot = path.join(root, 'session.png');
    await chromium(root, [`--screenshot=${shot}`, address]);
    const loadingShot = path.join(root, 'loading.png');
    // The loading state: the page as shipped, before any script drew a view.
    const shipped = new URL('../../web/static/index.html', import.meta.url).href;
    await chromium(root, [`--screenshot=${loadingShot}`, shipped]);
    const image = await fs.readFile(shot);
    expect(image.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(image.equals(await fs.readFile(loadingShot))).toBe(false);
  }, 180_000);
});
