/**
 * The dashboard after an OpenCode, a Codex and a Claude Code session went through the gateway's
 * fronts (fakes on loopback, each client's own user agent, session header and body shapes), in
 * real headless Chromium, judged by what a person sees (issue 35, item 9):
 *
 * - three sessions, not four: OpenCode's title call is folded into its session;
 * - each row names its session: a short id, the first prompt, the working folder;
 * - the Codex output card previews the command's own output, not Codex's header;
 * - the request the upstream refused (a 500) is counted and listed, with its status and message;
 * - each session names the read-back tool its client sees, not gemini-cli's;
 * - the session chart's request numbers never touch, at any width from 900 to 1400 px.
 *
 * Screenshots go to `.tmp/artifacts/dashboard/` (`dashboard-clients-*.png`).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM_SKIP_MESSAGE,
  chromiumAvailable,
  launchChromium,
  overflowingElements,
  watchedPage,
} from '@toolmask/test-support/browser';
import { responsesAnswer, toolOutputsOf } from '@toolmask/test-support/fake-openai-responses';
import {
  openAiAnswer,
  startFakeUpstream,
  type FakeUpstream,
} from '@toolmask/test-support/fake-upstream';
import type { RunningGateway } from '../listen-gateway.js';
import { claudeLikeUpstream, runClaudeLikeSession } from '../test-utils/claude-like-session.js';
import {
  gatewayFixture,
  ownerHeaders,
  post,
  settled,
  shellOutput,
  startTestGateway,
} from '../test-utils/gemini-client.js';
import { drawn, openSession, sessionRowsOf, until } from '../test-utils/dashboard-views.js';
import type { SessionsReport } from './api-types.js';
import { brokenWords } from './layout-probe.js';

const ARTIFACTS = fileURLToPath(new URL('../../../../.tmp/artifacts/dashboard/', import.meta.url));
/** Enough requests that the chart cannot number each one at 900 px. */
const CLAUDE_STEPS = 43;
const OPENCODE_SESSION = 'ses_1f2e3d4c5b6a7980';
const CODEX_SESSION = '019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b';
const OPENCODE_UA = 'opencode/1.18.33 ai-sdk/provider-utils/3.0.10 runtime/bun/1.3.1';
const CODEX_UA = 'codex_exec/0.171.0 (Debian 12.0.0; x86_64) xterm (codex_exec; 0.171.0)';
const UPSTREAM_ERROR = 'The server had an error while processing your request.';
const TITLE_SYSTEM =
  'You are a title generator. You output ONLY a thread title. Nothing else.\n<task>\nGenerate a brief title that would help the user find this conversation later.\n</task>';

if (!chromiumAvailable) console.warn(`[toolmask] client browser tests ${CHROMIUM_SKIP_MESSAGE}`);

/** What Codex 0.171 puts before a command's output. */
function codexOutput(callId: string): string {
  return `Chunk ID: 5e1a9c\nWall time: 0.0512 seconds\nProcess exited with code 0\nOriginal token count: 4210\nOutput:\n${Array.from({ length: 400 }, (_, index) => `${callId}: Compiling unit_${index + 1} v0.1.0`).join('\n')}`;
}

/**
 * One fake for both OpenAI fronts: Codex's Responses calls `exec_command` 5 times (its third
 * request is refused once with a 500, as a provider does under load); OpenCode's chat calls `bash`
 * 5 times and answers its title call with a title.
 */
async function openAiUpstream(): Promise<FakeUpstream> {
  let refused = false;
  return startFakeUpstream((request) => {
    if (request.path === '/v1/responses') {
      const done = toolOutputsOf(request.json).length;
      if (done === 2 && !refused) {
        refused = true;
        return { status: 500, json: { error: { message: UPSTREAM_ERROR, type: 'server_error' } } };
      }
      const usage = { input: 2_000 + 3_000 * done, cached: 1_500 * done };
      return done < 5
        ? responsesAnswer(
            [
              {
                functionCall: {
                  callId: `call_${done}`,
                  name: 'exec_command',
                  arguments: { cmd: `cargo build -p unit_${done}` },
                },
              },
            ],
            usage,
          )
        : responsesAnswer([{ text: 'Built.' }], usage);
    }
    const messages = (request.json as { messages: Array<{ role: string; content: unknown }> })
      .messages;
    if (String(messages[0]?.content).startsWith('You are a title generator')) {
      return openAiAnswer({ content: 'Listing project files' }, { prompt: 400 });
    }
    const done = messages.filter((message) => message.role === 'tool').length;
    const usage = { prompt: 1_800 + 3_000 * done, cached: 1_200 * done };
    return done < 5
      ? openAiAnswer(
          {
            toolCalls: [{ id: `call_oc_${done}`, name: 'bash', arguments: '{"command":"ls -R"}' }],
          },
          usage,
        )
      : openAiAnswer({ content: 'Here they are.' }, usage);
  });
}

/** Codex: its environment context, the prompt, an output per call; a refused request is retried. */
async function runCodexSession(url: string): Promise<void> {
  const input: Array<Record<string, unknown>> = [
    {
      type: 'message',
      role: 'developer',
      content: [{ type: 'input_text', text: '<permissions instructions>' }],
    },
    {
      type: 'message',
      role: 'user',
      content: [
        {
          type: 'input_text',
          text: '<environment_context>\n  <cwd>/home/dev/rust-app</cwd>\n  <shell>bash</shell>\n</environment_context>',
        },
      ],
    },
    {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: 'build every crate and fix the warnings' }],
    },
  ];
  for (let request = 0; request < 12; request++) {
    const body = {
      ...{ model: 'gpt-5-codex', instructions: 'You are Codex.', input, stream: true },
      tools: [{ type: 'function', name: 'exec_command', parameters: { type: 'object' } }],
      prompt_cache_key: CODEX_SESSION,
    };
    const answer = await post(`${url}/v1/responses`, body, {
      authorization: 'Bearer sk-test',
      originator: 'codex_exec',
      'session-id': CODEX_SESSION,
      'user-agent': CODEX_UA,
    });
    if (answer.status === 500) continue; // Codex retries
    expect(answer.status).toBe(200);
    const call = answer.events
      .map((event) => event as { type: string; item?: Record<string, unknown> })
      .find((event) => event.type === 'response.output_item.done' && event.item?.['call_id']);
    if (!call?.item) return;
    const callId = call.item['call_id'] as string;
    input.push(
      { ...call.item },
      { type: 'function_call_output', call_id: callId, output: codexOutput(callId) },
    );
  }
}

/** OpenCode: its title call beside the first turn (same session header), then the turns. */
async function runOpenCodeSession(url: string): Promise<void> {
  const headers = {
    authorization: 'Bearer sk-test',
    'user-agent': OPENCODE_UA,
    'x-session-affinity': OPENCODE_SESSION,
    'x-session-id': OPENCODE_SESSION,
  };
  const prompt = 'list the files under src and say what each does';
  const title = await post(
    `${url}/v1/chat/completions`,
    {
      model: 'qwen3-coder',
      stream: true,
      messages: [
        { role: 'system', content: TITLE_SYSTEM },
        { role: 'user', content: 'Generate a title for this conversation:\n' },
        { role: 'user', content: prompt },
      ],
    },
    headers,
  );
  expect(title.status).toBe(200);
  const messages: Array<Record<string, unknown>> = [
    {
      role: 'system',
      content:
        'You are opencode, an interactive CLI tool.\n<env>\n  Working directory: /home/dev/web-shop\n  Is directory a git repo: yes\n</env>',
    },
    { role: 'user', content: [{ type: 'text', text: prompt }] },
  ];
  for (let request = 0; request < 10; request++) {
    const answer = await post(
      `${url}/v1/chat/completions`,
      {
        model: 'qwen3-coder',
        stream: true,
        messages,
        tools: [{ type: 'function', function: { name: 'bash', parameters: {} } }],
      },
      headers,
    );
    expect(answer.status).toBe(200);
    const call = answer.events
      .flatMap(
        (event) =>
          (event as { choices?: Array<{ delta?: { tool_calls?: unknown[] } }> }).choices ?? [],
      )
      .flatMap((choice) => choice.delta?.tool_calls ?? [])[0] as
      { id: string; function: { name: string; arguments: string } } | undefined;
    if (!call) return;
    messages.push(
      { role: 'assistant', content: null, tool_calls: [{ ...call, type: 'function' }] },
      { role: 'tool', tool_call_id: call.id, content: shellOutput(call.id) },
    );
  }
}

async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  await fs.mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage });
}

/** Pairs of request numbers under the session chart whose boxes touch or overlap. */
function touchingLabels(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const boxes = [...document.querySelectorAll('svg.prompt-chart text.x-label')]
      .map((label) => ({ text: label.textContent, box: label.getBoundingClientRect() }))
      .sort((a, b) => a.box.left - b.box.left);
    const found = [];
    for (let index = 1; index < boxes.length; index++) {
      const before = boxes[index - 1];
      const after = boxes[index];
      if (after.box.left - before.box.right < 4) found.push(before.text + ' ' + after.text);
    }
    return found;
  })()`);
}

describe.skipIf(!chromiumAvailable)('the dashboard after OpenCode, Codex and Claude Code', () => {
  let browser: Browser;
  let running: RunningGateway;
  let report: SessionsReport;
  const upstreams: FakeUpstream[] = [];
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const fixture = await gatewayFixture({
      toolProtectionThreshold: 4_000,
      minPrunableTokensThreshold: 2_000,
    });
    cleanup = fixture.cleanup;
    const openai = await openAiUpstream();
    const anthropic = await claudeLikeUpstream(CLAUDE_STEPS, (step) => ({
      input: 300,
      cacheRead: 3_000 * step,
      cacheWrite: 2_500,
    }));
    upstreams.push(openai, anthropic);
    running = await startTestGateway({
      stateDir: fixture.stateDir,
      settingsFile: fixture.settingsFile,
      upstreams: { openai: `${openai.url}/v1`, anthropic: anthropic.url },
    });
    await runOpenCodeSession(running.url);
    await runCodexSession(running.url);
    expect(await runClaudeLikeSession(running.url, { maxRequests: CLAUDE_STEPS + 1 })).toBe(
      CLAUDE_STEPS + 1,
    );
    await settled(running);
    const answer = await fetch(`${running.url}/api/sessions`, { headers: ownerHeaders(running) });
    report = (await answer.json()) as SessionsReport;
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await running?.close();
    for (const upstream of upstreams) await upstream.close();
    await cleanup?.();
  });

  it('lists three sessions, each with its id, prompt and folder, and the refused request', async () => {
    const { page, problems } = await watchedPage(browser, 1400);
    await page.goto(running.dashboardUrl);
    await drawn(page, 'overview');
    expect(await page.locator('.session-row').count()).toBe(3);
    const expected = {
      opencode: ['list the files under src and say what each does', '/home/dev/web-shop'],
      codex: ['build every crate and fix the warnings', '/home/dev/rust-app'],
      'claude-code': ['build everything', undefined],
    } as const;
    for (const [client, [prompt, folder]] of Object.entries(expected)) {
      const row = sessionRowsOf(page, client);
      const id = (await row.getAttribute('data-session')) as string;
      expect(await row.locator('.session-prompt').textContent()).toBe(prompt);
      expect(await row.locator('.session-short-id').textContent()).toBe(id.slice(0, 8));
      if (folder) expect(await row.locator('.session-folder').textContent()).toBe(folder);
    }
    // The OpenCode title call is one of its session's requests, not a session.
    const opencode = report.sessions.find((session) => session.client === 'opencode');
    expect(opencode).toMatchObject({ requests: 7, sideRequests: 1 });
    expect(await sessionRowsOf(page, 'opencode').locator('.side-note').textContent()).toBe(
      '1 side',
    );

    // The refused request: counted on a card and listed with its status and the provider's words.
    const failedCard = page.locator('.cards [data-metric="failed"]');
    expect(await failedCard.getAttribute('data-value')).toBe('1');
    const failed = page.locator('#failed-requests tr.failed-request');
    expect(await failed.count()).toBe(1);
    expect(await failed.locator('td').nth(1).textContent()).toBe('500');
    expect(await failed.locator('td.failure-reason').textContent()).toBe(UPSTREAM_ERROR);
    expect(await failed.locator('a').textContent()).toBe(
      report.sessions.find((session) => session.client === 'codex')?.id.slice(0, 8),
    );
    expect(await brokenWords(page, 'table.sessions th, table.sessions td')).toEqual([]);
    expect(await overflowingElements(page)).toEqual([]);
    await screenshot(page, 'dashboard-clients-overview-1400');
    // Narrower, the names still take no width from the figures: nothing sticks out.
    for (const width of [900, 700]) {
      await page.setViewportSize({ width, height: 900 });
      await until(page, `document.documentElement.clientWidth === ${width}`);
      await screenshot(page, `dashboard-clients-overview-${width}`);
      expect(await overflowingElements(page)).toEqual([]);
      expect(await brokenWords(page, 'table.sessions th, table.sessions td')).toEqual([]);
    }
    expect(problems).toEqual([]);
    await page.close();
  });

  it("the Codex cards preview the command's output; each session names its client's read-back tool", async () => {
    const { page, problems } = await watchedPage(browser, 1400);
    await openSession(page, running, 'codex');
    const previews = await page.locator('pre.preview').allTextContents();
    expect(previews.length).toBeGreaterThan(0);
    for (const preview of previews) {
      expect(preview).not.toMatch(/Chunk ID|Wall time|Original token count/);
      expect(preview).toMatch(/^call_\d+: Compiling unit_1 v0\.1\.0\n/);
    }
    expect(await page.locator('.read-tool-name').textContent()).toBe(
      'mcp__toolmask__read_tool_output',
    );
    expect(await page.locator('.session-folder').first().textContent()).toBe('/home/dev/rust-app');
    expect(await page.locator('#failed-requests tr.failed-request').count()).toBe(1);
    await screenshot(page, 'dashboard-clients-codex-1400');

    for (const [client, name] of [
      ['opencode', 'toolmask_read_tool_output'],
      ['claude-code', 'mcp__toolmask__read_tool_output'],
    ] as const) {
      await openSession(page, running, client);
      expect(await page.locator('.read-tool-name').textContent()).toBe(name);
      expect(await page.locator('#view').textContent()).not.toContain('mcp_toolmask_read');
    }
    // The settings panel names each client's.
    await page.goto(`${running.dashboardUrl}#/settings`);
    await drawn(page, 'settings');
    const names = page.locator('#read-tool-names');
    expect(await names.locator('[data-key="codex"] td').textContent()).toBe(
      'mcp__toolmask__read_tool_output',
    );
    expect(await names.locator('[data-key="opencode"] td').textContent()).toBe(
      'toolmask_read_tool_output',
    );
    expect(problems).toEqual([]);
    await page.close();
  });

  it("the session chart's request numbers never touch, from 900 to 1400 px", async () => {
    const { page, problems } = await watchedPage(browser, 900);
    await openSession(page, running, 'claude-code');
    expect(await page.locator('svg.prompt-chart circle.point').count()).toBe(CLAUDE_STEPS + 1);
    await screenshot(page, 'dashboard-clients-claude-900', false);
    for (let width = 900; width <= 1400; width += 20) {
      await page.setViewportSize({ width, height: 900 });
      // Drawn again at the box's new width.
      await until(
        page,
        `Math.floor(document.querySelector('.prompt-chart-plot').getBoundingClientRect().width) === Number(document.querySelector('svg.prompt-chart').getAttribute('width'))`,
      );
      expect({ width, touching: await touchingLabels(page) }).toEqual({ width, touching: [] });
      const labels = await page.locator('svg.prompt-chart text.x-label').allTextContents();
      expect(labels[0]).toBe('1');
      expect(labels[labels.length - 1]).toBe(String(CLAUDE_STEPS + 1));
    }
    await screenshot(page, 'dashboard-clients-claude-1400', false);
    expect(problems).toEqual([]);
    await page.close();
  });
});
