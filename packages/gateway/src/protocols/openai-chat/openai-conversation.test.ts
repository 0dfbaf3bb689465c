/**
 * The OpenAI chat protocol over a conversation, as qwen-code's requests shape it: parallel tool results
 * of one turn, DashScope's `cache_control` marker on the newest message (an array content that is
 * a plain string again in the next request), a gateway restarted mid-session, and the failures a
 * record counts for tool messages the protocol cannot read.
 */
import { parseMaskedSnippet } from '@toolmask/core';
import { describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../listen-gateway.js';
import {
  openAiAnswer,
  startFakeUpstream,
  type FakeUpstream,
} from '@toolmask/test-support/fake-upstream';
import {
  gatewayFixture,
  post,
  settled,
  shellOutput,
  startTestGateway,
  ownerFetch,
} from '../../test-utils/gemini-client.js';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';

type Message = Record<string, unknown>;

const cleanups = cleanUpAfterEach();

const SMALL_BUDGET = { toolProtectionThreshold: 3_000, minPrunableTokensThreshold: 1_000 };

async function upstreamAndFixture(settings: Record<string, unknown> = SMALL_BUDGET) {
  const fixture = await gatewayFixture(settings);
  cleanups.push(fixture.cleanup);
  const upstream = await startFakeUpstream(() =>
    openAiAnswer({ content: 'ok' }, { prompt: 5_000, cached: 4_000 }),
  );
  cleanups.push(() => upstream.close());
  return { fixture, upstream };
}

async function gateway(
  fixture: { stateDir: string; settingsFile: string },
  upstream: FakeUpstream,
): Promise<RunningGateway> {
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { openai: `${upstream.url}/v1` },
  });
  cleanups.push(() => running.close());
  return running;
}

const call = (id: string) => ({
  id,
  type: 'function',
  function: { name: 'run_shell_command', arguments: `{"command":"make ${id}"}` },
});

function toolContents(body: unknown): unknown[] {
  return (body as { messages: Message[] }).messages
    .filter((message) => message['role'] === 'tool')
    .map((message) => message['content']);
}

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : ((content as Array<{ text: string }>)[0]?.text ?? '');

const isMasked = (content: unknown) => parseMaskedSnippet(textOf(content)) !== undefined;

describe('the OpenAI chat protocol over a conversation', () => {
  it('protects every result of the turn being sent, as the Gemini shape does', async () => {
    const { fixture, upstream } = await upstreamAndFixture();
    const running = await gateway(fixture, upstream);
    const messages: Message[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'build all three' },
      { role: 'assistant', content: null, tool_calls: ['a', 'b', 'c'].map(call) },
      ...['a', 'b', 'c'].map((id) => ({
        role: 'tool',
        tool_call_id: id,
        content: shellOutput(id),
      })),
    ];
    const url = `${running.url}/openai/v1/chat/completions`;
    await post(url, { model: 'q', messages });
    expect(toolContents(upstream.requests[0]!.json).map(isMasked)).toEqual([false, false, false]);

    // A turn later the three are history like any other: the budget masks older ones.
    messages.push(
      { role: 'assistant', content: null, tool_calls: [call('d')] },
      { role: 'tool', tool_call_id: 'd', content: shellOutput('d') },
    );
    await post(url, { model: 'q', messages });
    expect(toolContents(upstream.requests[1]!.json).map(isMasked)).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });

  /**
   * qwen-code with DashScope marks the newest message's content with `cache_control` (turning a
   * string into a text part); in the next request it is a plain string again.
   */
  async function dashScopeSession(running: RunningGateway, turns: number, from = 0) {
    const url = `${running.url}/openai/v1/chat/completions`;
    const history: Message[] = [
      { role: 'system', content: 'You are Qwen Code.' },
      { role: 'user', content: 'fix the build' },
    ];
    for (let turn = 0; turn < turns; turn++) {
      const id = `call_${turn}`;
      // Turn 3's output is giant: masked at once, while it still carries the marker.
      history.push(
        { role: 'assistant', content: null, tool_calls: [call(id)] },
        { role: 'tool', tool_call_id: id, content: shellOutput(id, turn === 3 ? 3_000 : 400) },
      );
      if (turn < from) continue;
      const last = history.at(-1)!;
      const marked = {
        ...last,
        content: [{ type: 'text', text: last['content'], cache_control: { type: 'ephemeral' } }],
      };
      await post(url, { model: 'qwen3-coder-plus', messages: [...history.slice(0, -1), marked] });
    }
  }

  it('a restart mid-session sends the same bytes, with DashScope cache markers moving', async () => {
    const settings = { ...SMALL_BUDGET, maxOutputTokens: 10_000 };
    const straight = await upstreamAndFixture(settings);
    await dashScopeSession(await gateway(straight.fixture, straight.upstream), 10);

    const restarted = await upstreamAndFixture(settings);
    const first = await gateway(restarted.fixture, restarted.upstream);
    await dashScopeSession(first, 5);
    await first.close();
    await dashScopeSession(await gateway(restarted.fixture, restarted.upstream), 10, 5);

    // The snippets name each fixture's own folder; everything else must be the same bytes.
    const bodies = ({ upstream, fixture }: typeof straight) =>
      upstream.requests.map((r) => r.raw.toString().replaceAll(fixture.root, '<root>'));
    expect(bodies(restarted)).toEqual(bodies(straight));
    // The giant output went out masked in the request that brought it, marker kept.
    const giant = (straight.upstream.requests[3]!.json as { messages: Message[] }).messages.at(-1)!;
    expect(isMasked(giant['content'])).toBe(true);
    expect(giant['content']).toEqual([
      expect.objectContaining({ cache_control: { type: 'ephemeral' } }),
    ]);
    expect(toolContents(straight.upstream.requests.at(-1)!.json).filter(isMasked).length).toBe(
      toolContents(straight.upstream.requests.at(-1)!.json).length - 1,
    );
  });

  it("a field the client adds to a masked message is sent; masking keeps a part's marker", async () => {
    const { fixture, upstream } = await upstreamAndFixture();
    const running = await gateway(fixture, upstream);
    const url = `${running.url}/openai/v1/chat/completions`;
    const messages: Message[] = [{ role: 'user', content: 'go' }];
    for (const id of ['a', 'b', 'c']) {
      messages.push(
        { role: 'assistant', content: null, tool_calls: [call(id)] },
        {
          role: 'tool',
          tool_call_id: id,
          content: [{ type: 'text', text: shellOutput(id), cache_control: { type: 'ephemeral' } }],
        },
      );
    }
    messages.push({ role: 'user', content: 'and now?' });
    await post(url, { model: 'q', messages });
    const first = (upstream.requests[0]!.json as { messages: Message[] }).messages[2]!;
    expect(isMasked(first['content'])).toBe(true);
    expect((first['content'] as Array<Record<string, unknown>>)[0]).toMatchObject({
      type: 'text',
      cache_control: { type: 'ephemeral' },
    });

    // The client changes that (already masked) message: its new field goes out with the snippet.
    messages[2] = { ...messages[2], name: 'run_shell_command' };
    await post(url, { model: 'q', messages });
    const second = (upstream.requests[1]!.json as { messages: Message[] }).messages[2]!;
    expect(second['name']).toBe('run_shell_command');
    expect(textOf(second['content'])).toBe(textOf(first['content']));
  });

  it('counts a tool message it cannot read once, in the request that brings it', async () => {
    const { fixture, upstream } = await upstreamAndFixture();
    const running = await gateway(fixture, upstream);
    const url = `${running.url}/openai/v1/chat/completions`;
    const messages: Message[] = [
      { role: 'user', content: 'look' },
      { role: 'assistant', content: null, tool_calls: [call('img')] },
      {
        role: 'tool',
        tool_call_id: 'img',
        content: [{ type: 'image_url', image_url: { url: 'x' } }],
      },
    ];
    for (let turn = 0; turn < 4; turn++) {
      await post(url, { model: 'q', messages });
      messages.push(
        { role: 'assistant', content: `turn ${turn}` },
        { role: 'user', content: 'more' },
      );
    }
    await settled(running);
    const sessions = (await (await ownerFetch(running, `${running.url}/api/sessions`)).json()) as {
      sessions: Array<{ requests: number; failures: number }>;
    };
    expect(sessions.sessions).toEqual([expect.objectContaining({ requests: 4, failures: 1 })]);
  });

  it('a body with a byte order mark is read (and masked) like one without', async () => {
    const { fixture, upstream } = await upstreamAndFixture();
    const running = await gateway(fixture, upstream);
    const messages: Message[] = [{ role: 'user', content: 'go' }];
    for (const id of ['a', 'b', 'c']) {
      messages.push(
        { role: 'assistant', content: null, tool_calls: [call(id)] },
        { role: 'tool', tool_call_id: id, content: shellOutput(id) },
      );
    }
    messages.push({ role: 'user', content: 'next' });
    const answer = await post(
      `${running.url}/openai/v1/chat/completions`,
      '\ufeff' + JSON.stringify({ model: 'q', messages }),
    );
    expect(answer.status).toBe(200);
    expect(toolContents(upstream.requests[0]!.json).map(isMasked)).toEqual([true, true, false]);
  });
});
