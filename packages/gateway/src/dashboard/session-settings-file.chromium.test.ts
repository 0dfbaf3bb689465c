/**
 * The session page names the masking settings file that applies to the session's client (issue
 * 35, item 10): a Claude Code session its `~/.claude/toolmask.json`, a gemini-cli session
 * gemini's `settings.json`, where it used to name gemini's for everyone.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from '@toolmask/test-support/browser';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { geminiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import { listenGateway } from '../listen-gateway.js';
import { ownerHeaders } from '../test-utils/gemini-client.js';
import type { SessionsReport } from './api-types.js';

const cleanups = cleanUpAfterEach();

const AGENTS = {
  'claude-code': 'claude-cli/2.1.328 (external, cli)',
  'gemini-cli': 'GeminiCLI-tui/0.61.0/gemini-2.5-flash (linux; x64; terminal)',
};

describe.skipIf(!chromiumAvailable)("the session page names its client's settings file", () => {
  it("a Claude Code session: ~/.claude/toolmask.json; a gemini-cli one: gemini's", async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-session-settings-'));
    cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
    const gemini = path.join(root, '.gemini', 'settings.json');
    const claude = path.join(root, '.claude', 'toolmask.json');
    await fs.mkdir(path.dirname(gemini), { recursive: true });
    await fs.mkdir(path.dirname(claude), { recursive: true });
    await fs.writeFile(gemini, '{}');
    await fs.writeFile(claude, '{ "enabled": true }');
    const upstream = await startFakeUpstream(() => geminiAnswer([{ text: 'hi' }]));
    cleanups.push(() => upstream.close());
    const saved = process.env['GEMINI_CLI_HOME'];
    process.env['GEMINI_CLI_HOME'] = root;
    const gateway = await listenGateway({
      port: 0,
      stateDir: path.join(root, 'state'),
      clientSettingsFiles: { 'claude-code': claude },
      upstreams: { gemini: upstream.url },
    }).finally(() => {
      if (saved === undefined) delete process.env['GEMINI_CLI_HOME'];
      else process.env['GEMINI_CLI_HOME'] = saved;
    });
    cleanups.push(() => gateway.close());
    for (const [client, agent] of Object.entries(AGENTS)) {
      const answer = await fetch(
        `${gateway.url}/gemini/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': agent },
          body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: client }] }] }),
        },
      );
      await answer.text();
    }
    const sessions = (await (
      await fetch(`${gateway.url}/api/sessions`, { headers: ownerHeaders(gateway) })
    ).json()) as SessionsReport;
    const token = ownerHeaders(gateway)['x-toolmask-token'] ?? '';

    const browser = await launchChromium();
    cleanups.push(() => browser.close());
    const page = await browser.newPage();
    const shown: Record<string, string> = {};
    for (const session of sessions.sessions) {
      await page.goto(`${gateway.url}/?token=${token}#/session/${encodeURIComponent(session.id)}`);
      await page.waitForSelector(`.session[data-session="${session.id}"] .settings-file`);
      shown[session.client] = (await page.textContent('.session-facts .settings-file')) ?? '';
    }
    expect(shown).toEqual({ 'claude-code': claude, 'gemini-cli': gemini });
  }, 120_000);
});
