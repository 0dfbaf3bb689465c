/**
 * The OpenAI chat completions protocol through the gateway: tool messages masked (string or text
 * parts), everything else forwarded with its value, usage from the final chunk, bad input.
 */
import { describe, expect, it } from 'vitest';
import { parseMaskedSnippet } from '@toolmask/core';
import {
  openAiAnswer,
  PrefixCache,
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
import type { RunningGateway } from '../../listen-gateway.js';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';

const cleanups = cleanUpAfterEach();

type Message = Record<string, unknown>;

async function setUp(): Promise<{ upstream: FakeUpstream; running: RunningGateway }> {
  const fixture = await gatewayFixture({
    toolProtectionThreshold: 8_000,
    minPrunableTokensThreshold: 8_000,
  });
  cleanups.push(fixture.cleanup);
  const cache = new PrefixCache();
  const upstream = await startFakeUpstream((request) => {
    const messages = (request.json as { messages: Message[] }).messages;
    const usage = cache.usage('c', messages);
    const step = messages.filter((message) => message['role'] === 'tool').length;
    return step < 8
      ? openAiAnswer(
          {
            toolCalls: [
              {
                id: `call_${step}`,
                name: 'run_shell_command',
                arguments: JSON.stringify({ command: `make ${step}` }),
              },
            ],
          },
          { prompt: usage.prompt, cached: usage.cached },
        )
      : openAiAnswer({ content: 'done' }, { prompt: usage.prompt, cached: usage.cached });
  });
  cleanups.push(() => upstream.close());
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { openai: `${upstream.url}/v1` },
  });
  cleanups.push(() => running.close());
  return { upstream, running };
}

/** A qwen-like client: resends its messages, answers tool calls with bulky outputs. */
async function converse(
  running: RunningGateway,
  asParts: boolean,
  extra: Record<string, unknown> | ((turn: number) => Record<string, unknown>) = {},
) {
  const messages: Message[] = [
    { role: 'system', content: 'You are Qwen Code.' },
    {
      role: 'user',
      content: [{ type: 'text', text: 'build it', cache_control: { type: 'ephemeral' } }],
    },
  ];
  for (let turn = 0; turn < 12; turn++) {
    const answer = await post(`${running.url}/openai/v1/chat/completions`, {
      model: 'qwen3-coder-plus',
      messages,
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 32768,
      ...(typeof extra === 'function' ? extra(turn) : extra),
    });
    const calls = answer.events.flatMap((event) =>
      (
        (
          event as {
            choices?: Array<{
              delta?: {
                tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
              };
            }>;
          }
        ).choices ?? []
      ).flatMap((choice) => choice.delta?.tool_calls ?? []),
    );
    if (calls.length === 0) break;
    messages.push({
      role: 'assistant',
      content: null,
      reasoning_content: `thinking about turn ${turn}`,
      tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: call.function })),
    });
    for (const call of calls) {
      const text = shellOutput(call.id);
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: asParts ? [{ type: 'text', text }] : text,
      });
    }
  }
  return messages;
}

function toolTexts(request: { json?: unknown }): string[] {
  return ((request.json as { messages: Message[] }).messages ?? [])
    .filter((message) => message['role'] === 'tool')
    .map((message) =>
      typeof message['content'] === 'string'
        ? (message['content'] as string)
        : ((message['content'] as Array<{ text: string }>)[0]?.text ?? ''),
    );
}

describe('the OpenAI chat protocol', () => {
  it.each([
    ['an array of text parts', true],
    ['a string', false],
  ])(
    'masks tool messages whose content is %s, keeping their shape and every other field',
    async (_name, asParts) => {
      const { upstream, running } = await setUp();
      const sent = await converse(running, asParts, {
        temperature: 0.7,
        vendor_field: { keep: [1, 'a'] },
      });
      const requests = upstream.matching(/\/v1\/chat\/completions$/);
      const last = requests.at(-1)!;
      const texts = toolTexts(last);
      const masked = texts.filter((text) => parseMaskedSnippet(text));
      expect(masked.length).toBeGreaterThan(2);
      expect(texts.at(-1)).toBe(shellOutput('call_7'));
      expect(masked[0]).toContain('mcp_toolmask_read_tool_output');
      // Same shape as sent; every non-tool message and field is the value the client sent.
      const body = last.json as Record<string, unknown> & { messages: Message[] };
      expect(body).toMatchObject({
        model: 'qwen3-coder-plus',
        stream: true,
        temperature: 0.7,
        vendor_field: { keep: [1, 'a'] },
      });
      body.messages.forEach((message, index) => {
        if (message['role'] !== 'tool') expect(message).toEqual(sent[index]);
        else expect(Array.isArray(message['content'])).toBe(asParts);
      });
      // A masked message is the same bytes in every later request.
      const seen = new Map<number, string>();
      for (const request of requests) {
        toolTexts(request).forEach((text, index) => {
          if (!parseMaskedSnippet(text)) return;
          if (!seen.has(index)) seen.set(index, text);
          else expect(text).toBe(seen.get(index));
        });
      }
    },
  );

  it('names the read-back tool as the conversation declared it, in requests that declare none', async () => {
    const { upstream, running } = await setUp();
    const tool = { type: 'function', function: { name: 'mcp__toolmask__read_tool_output' } };
    // qwen's name for the MCP tool, declared by the first request only (a later side request
    // without tools must not teach the model another name).
    await converse(running, false, (turn) => (turn === 0 ? { tools: [tool] } : {}));
    const masked = toolTexts(upstream.matching(/\/v1\/chat\/completions$/).at(-1)!).filter((text) =>
      parseMaskedSnippet(text),
    );
    expect(masked.length).toBeGreaterThan(2);
    for (const text of masked) {
      expect(text).toContain('Full output: mcp__toolmask__read_tool_output(');
    }
  });

  it('records usage from the final chunk, cached tokens included', async () => {
    const { running } = await setUp();
    await converse(running, true);
    await settled(running);
    const sessions = (await (await ownerFetch(running, `${running.url}/api/sessions`)).json()) as {
      sessions: Array<{ requests: number; promptTokens: number; cachedTokens: number }>;
    };
    expect(sessions.sessions).toHaveLength(1);
    expect(sessions.sessions[0]!.requests).toBe(9);
    expect(sessions.sessions[0]!.cachedTokens).toBeGreaterThan(0);
  });

  it('leaves unknown tool_call_ids and non-text contents alone, forwarded as they came', async () => {
    const { upstream, running } = await setUp();
    const big = shellOutput('orphan');
    const messages = [
      { role: 'user', content: 'hi' },
      { role: 'tool', tool_call_id: 'never-announced', content: big },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'img', type: 'function', function: { name: 'screenshot', arguments: '{}' } },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'img',
        content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }],
      },
      ...Array.from({ length: 6 }, (_, i) => [
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: `c${i}`,
              type: 'function',
              function: { name: 'run_shell_command', arguments: '{}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: `c${i}`, content: shellOutput(`c${i}`) },
      ]).flat(),
      { role: 'user', content: 'go on' },
    ];
    const raw = JSON.stringify({ model: 'm', messages, stream: true });
    await post(`${running.url}/v1/chat/completions`, raw);
    const forwarded = upstream.requests[0]!.json as { messages: Message[] };
    expect(forwarded.messages[1]).toEqual(messages[1]);
    expect(forwarded.messages[3]).toEqual(messages[3]);
    expect(toolTexts(upstream.requests[0]!).some((text) => parseMaskedSnippet(text))).toBe(true);
  });

  it('a malformed body: 400 in the OpenAI error style; no upstream configured: 502 saying so', async () => {
    const { running } = await setUp();
    const bad = await post(`${running.url}/v1/chat/completions`, '{"messages": [');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toMatchObject({
      error: { type: 'toolmask_gateway_error', code: 'MALFORMED_JSON' },
    });
    const fixture = await gatewayFixture();
    cleanups.push(fixture.cleanup);
    const bare = await startTestGateway({ stateDir: fixture.stateDir });
    cleanups.push(() => bare.close());
    const none = await post(`${bare.url}/v1/chat/completions`, { model: 'm', messages: [] });
    expect(none.status).toBe(502);
    expect(none.text).toContain('--openai-upstream');
  });
});
