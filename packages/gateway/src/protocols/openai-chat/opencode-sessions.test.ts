/**
 * Two OpenCode sessions with the same first prompt and the same outputs (a scripted model: the
 * same call ids too). OpenCode 1.18.33 sends its session id as `x-session-affinity` (and
 * `X-Session-Id`) to every provider but its own: each session is its own conversation. Without
 * any session signal they share a conversation key, and still no request carries a masked newest
 * output: a decision applies only where the output is at least as old as when it was made.
 */
import { parseMaskedSnippet } from '@toolmask/core';
import { openAiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { describe, expect, it } from 'vitest';
import {
  gatewayFixture,
  ownerFetch,
  post,
  settled,
  shellOutput,
  startTestGateway,
} from '../../test-utils/gemini-client.js';
import type { RunningGateway } from '../../listen-gateway.js';

type Message = Record<string, unknown>;

const cleanups = cleanUpAfterEach();

async function setUp(): Promise<{ running: RunningGateway; sent: Message[][] }> {
  const fixture = await gatewayFixture({
    toolProtectionThreshold: 3_000,
    minPrunableTokensThreshold: 1_000,
  });
  cleanups.push(fixture.cleanup);
  const sent: Message[][] = [];
  const upstream = await startFakeUpstream((request) => {
    sent.push((request.json as { messages: Message[] }).messages);
    return openAiAnswer({ content: 'ok' }, { prompt: 5_000, cached: 0 });
  });
  cleanups.push(() => upstream.close());
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { openai: `${upstream.url}/v1` },
  });
  cleanups.push(() => running.close());
  return { running, sent };
}

/** One `opencode run "fix the build"`: six turns of one shell call each, the same every run. */
async function opencodeRun(running: RunningGateway, headers: Record<string, string>) {
  const messages: Message[] = [
    { role: 'system', content: 'You are opencode, an interactive CLI tool.' },
    { role: 'user', content: 'fix the build' },
  ];
  for (let turn = 0; turn < 6; turn++) {
    const id = `call_${turn}`;
    messages.push(
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id, type: 'function', function: { name: 'bash', arguments: `{"command":"make"}` } },
        ],
      },
      { role: 'tool', tool_call_id: id, content: shellOutput(id, 150) },
    );
    await post(`${running.url}/openai/v1/chat/completions`, { model: 'm1', messages }, headers);
  }
}

const newestIsWhole = (messages: Message[]) =>
  parseMaskedSnippet(String(messages.at(-1)!['content'])) === undefined;

const maskedCount = (messages: Message[]) =>
  messages.filter((message) => parseMaskedSnippet(String(message['content'])) !== undefined).length;

describe('two OpenCode sessions alike', () => {
  it('are two conversations, by the session id OpenCode sends', async () => {
    const { running, sent } = await setUp();
    await opencodeRun(running, { 'x-session-affinity': 'ses_a', 'X-Session-Id': 'ses_a' });
    await opencodeRun(running, { 'x-session-affinity': 'ses_b', 'X-Session-Id': 'ses_b' });
    await settled(running);
    const sessions = (await (await ownerFetch(running, `${running.url}/api/sessions`)).json()) as {
      sessions: Array<{ requests: number }>;
    };
    expect(sessions.sessions.map((session) => session.requests)).toEqual([6, 6]);
    expect(sent).toHaveLength(12);
    expect(sent.every(newestIsWhole)).toBe(true);
    // The first session masked old outputs; the second masks the same ones, turn for turn.
    expect(sent.slice(0, 6).map(maskedCount)).toEqual(sent.slice(6).map(maskedCount));
    expect(maskedCount(sent[5]!)).toBeGreaterThan(0);
  });

  it('without a session signal, never carry a newest output masked by the other', async () => {
    const { running, sent } = await setUp();
    await opencodeRun(running, {});
    await opencodeRun(running, {});
    expect(sent).toHaveLength(12);
    expect(maskedCount(sent[5]!)).toBeGreaterThan(0);
    expect(sent.map(newestIsWhole)).toEqual(sent.map(() => true));
  });
});
