/**
 * The Anthropic Messages front through a real gateway, against a scripted loopback fake of the
 * API: a Claude-Code-shaped client (its first message, a `system` entry, `tool_use` answers,
 * results as strings and block lists, the breakpoint on the newest result, moving on) whose old
 * outputs go out masked; the bytes across a gateway restart; credentials; usage; errors.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseMaskedSnippet } from '@toolmask/core';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import {
  anthropicAnswer,
  toolResultsOf,
  toolResultText,
  type ToolResultBlock,
} from '@toolmask/test-support/fake-anthropic';
import {
  PrefixCache,
  startFakeUpstream,
  type FakeUpstream,
} from '@toolmask/test-support/fake-upstream';
import type { RunningGateway } from '../../listen-gateway.js';
import {
  gatewayFixture,
  ownerFetch,
  post,
  settled,
  shellOutput,
  startTestGateway,
} from '../../test-utils/gemini-client.js';

const cleanups = cleanUpAfterEach();

type Message = Record<string, unknown>;

const SMALL_BUDGET = { toolProtectionThreshold: 3_000, minPrunableTokensThreshold: 1_000 };
const EPHEMERAL = { type: 'ephemeral' };
const IMAGE = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } };
const API_KEY = 'sk-ant-test-secret-0123456789';

/** A fake Messages API: a Bash call per request until `calls` results came back, then text. */
async function fakeAnthropic(
  calls: number,
  fixedUsage?: { input: number; cacheRead: number; cacheWrite: number },
): Promise<FakeUpstream> {
  const cache = new PrefixCache();
  const upstream = await startFakeUpstream((request) => {
    if (request.path !== '/v1/messages') return { json: { input_tokens: 1234 } };
    const body = request.json as { messages: Message[] };
    const usage = cache.usage('c', body.messages);
    const done = toolResultsOf(body).length;
    const tokens = fixedUsage ?? {
      input: usage.prompt - usage.cached,
      cacheRead: usage.cached,
      cacheWrite: 50,
    };
    return done < calls
      ? anthropicAnswer(
          [
            { text: `Step ${done}.` },
            { toolUse: { id: `toolu_${done}`, name: 'Bash', input: { command: `make ${done}` } } },
          ],
          tokens,
        )
      : anthropicAnswer([{ text: 'All built.' }], tokens);
  });
  cleanups.push(() => upstream.close());
  return upstream;
}

async function gateway(
  fixture: { stateDir: string; settingsFile: string },
  upstream: FakeUpstream,
  options: { maxBodyBytes?: number } = {},
): Promise<RunningGateway> {
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { anthropic: upstream.url },
    ...options,
  });
  cleanups.push(() => running.close());
  return running;
}

async function fixtureWith(settings: Record<string, unknown> = SMALL_BUDGET) {
  const fixture = await gatewayFixture(settings);
  cleanups.push(fixture.cleanup);
  return fixture;
}

/** The tool calls of a streamed answer (its `content_block_start` events). */
function toolUses(events: unknown[]): Array<{ id: string; name: string }> {
  return events.flatMap((event) => {
    const block = (event as { content_block?: { type: string; id: string; name: string } })
      .content_block;
    return block?.type === 'tool_use' ? [{ id: block.id, name: block.name }] : [];
  });
}

/** The result Claude Code would send for call `index`: a string, or text blocks (one with an image). */
function resultFor(id: string, index: number): ToolResultBlock {
  const text = shellOutput(id);
  if (index % 2 === 0)
    return { tool_use_id: id, type: 'tool_result', content: text, is_error: false };
  const [head, tail] = [text.slice(0, 4_000), text.slice(4_000)];
  return {
    type: 'tool_result',
    tool_use_id: id,
    content:
      index === 3
        ? [{ type: 'text', text: head }, IMAGE, { type: 'text', text: tail }]
        : [
            { type: 'text', text: head },
            { type: 'text', text: tail },
          ],
    is_error: index === 5,
  };
}

/**
 * A Claude-Code-like client: resends every message each time, the breakpoint on the newest
 * block only, answers each tool call with a bulky result. Requests before `from` are played
 * without being sent (a session that a restarted gateway picks up halfway).
 */
async function session(
  running: RunningGateway,
  options: { session?: string; maxRequests?: number; from?: number; header?: boolean } = {},
): Promise<{ sent: Message[][]; finalText: string }> {
  const sessionId = options.session ?? '7d3ccfd6-c287-4bce-a0c2-72f4ad5bc0b2';
  const messages: Message[] = [
    {
      role: 'user',
      content: [
        { type: 'text', text: '<system-reminder>\nAttribution...\n</system-reminder>\n' },
        { type: 'text', text: 'build everything' },
      ],
    },
    { role: 'system', content: '# Environment\nPrimary working directory: /w' },
  ];
  const sent: Message[][] = [];
  let finalText = '';
  let results = 0;
  for (let request = 0; request < (options.maxRequests ?? 12); request++) {
    // The newest block carries the breakpoint; older ones lose it.
    const marked = messages.map((message, index) => {
      if (index !== messages.length - 1) return message;
      // A string content takes the breakpoint as a text block (Claude Code's system entry: blocks
      // in the first request, a string in the next ones).
      const content =
        typeof message['content'] === 'string'
          ? [{ type: 'text', text: message['content'] }]
          : (message['content'] as Array<Record<string, unknown>>);
      return {
        ...message,
        content: content.map((block, at) =>
          at === content.length - 1 ? { ...block, cache_control: EPHEMERAL } : block,
        ),
      };
    });
    const body = {
      model: 'claude-opus-5-5',
      messages: marked,
      system: [{ type: 'text', text: 'You are Claude Code.', cache_control: EPHEMERAL }],
      tools: [{ name: 'Bash', description: 'Runs a command', input_schema: { type: 'object' } }],
      metadata: {
        user_id: JSON.stringify({ device_id: 'dev', account_uuid: '', session_id: sessionId }),
      },
      max_tokens: 32000,
      thinking: { type: 'adaptive' },
      context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
      stream: true,
    };
    const calls = [{ id: `toolu_${results}`, name: 'Bash' }];
    if (request >= (options.from ?? 0)) {
      sent.push(marked);
      const answer = await post(`${running.url}/v1/messages?beta=true`, body, {
        'x-api-key': API_KEY,
        authorization: `Bearer ${API_KEY}`,
        'anthropic-version': '2023-06-01',
        ...(options.header === false ? {} : { 'x-claude-code-session-id': sessionId }),
        'user-agent': 'claude-cli/2.1.328 (external, sdk-cli)',
      });
      expect(answer.status).toBe(200);
      const used = toolUses(answer.events);
      if (used.length === 0) {
        finalText = answer.events
          .map((event) => (event as { delta?: { text?: string } }).delta?.text ?? '')
          .join('');
        break;
      }
      expect(used).toEqual(calls);
    }
    messages.push(
      {
        role: 'assistant',
        content: [
          { type: 'text', text: `Step ${results}.` },
          {
            type: 'tool_use',
            id: calls[0]!.id,
            name: 'Bash',
            input: { command: `make ${results}` },
          },
        ],
      },
      { role: 'user', content: [resultFor(calls[0]!.id, results)] },
    );
    results++;
  }
  return { sent, finalText };
}

const isMasked = (block: ToolResultBlock) =>
  parseMaskedSnippet(toolResultText(block)) !== undefined;

const messageRequests = (upstream: FakeUpstream) =>
  upstream.requests.filter((request) => request.path === '/v1/messages');

describe('the Anthropic Messages front', () => {
  it('masks old tool results in later requests, string and block lists, keeping everything else', async () => {
    const upstream = await fakeAnthropic(8);
    const running = await gateway(await fixtureWith(), upstream);
    const { sent, finalText } = await session(running);
    expect(finalText).toBe('All built.');
    const requests = messageRequests(upstream);
    expect(requests).toHaveLength(9);
    expect(requests[0]!.query).toBe('beta=true');

    const last = requests.at(-1)!;
    const results = toolResultsOf(last.json);
    const masked = results.filter(isMasked);
    expect(masked.length).toBeGreaterThan(3);
    // The newest result is whole, with its breakpoint: one breakpoint in messages, as sent.
    expect(isMasked(results.at(-1)!)).toBe(false);
    expect(results.at(-1)!.cache_control).toEqual(EPHEMERAL);
    const text = last.raw.toString();
    expect(text.split('"cache_control"').length).toBe(
      JSON.stringify(sent.at(-1)).split('"cache_control"').length + 1, // + the system block's
    );
    // Shapes kept: a string stays a string; a list keeps its image, the snippet first.
    const string = masked.find((block) => typeof block.content === 'string')!;
    expect(string).toEqual({
      tool_use_id: string.tool_use_id,
      type: 'tool_result',
      content: expect.stringContaining('mcp__toolmask__read_tool_output('),
      is_error: false,
    });
    const withImage = results.find((block) => block.tool_use_id === 'toolu_3')!;
    expect(isMasked(withImage)).toBe(true);
    expect(withImage.content).toEqual([
      { type: 'text', text: expect.stringMatching(/^<tool_output_masked /) },
      IMAGE,
    ]);
    const failed = results.find((block) => block.tool_use_id === 'toolu_5')!;
    expect(isMasked(failed) && failed.is_error).toBe(true);
    // Every message that holds no masked result is the client's, and so is the rest of the body.
    const body = last.json as { messages: Message[] } & Record<string, unknown>;
    const client = sent.at(-1)!;
    body.messages.forEach((message, index) => {
      const hasMasked = toolResultsOf({ messages: [message] }).some(isMasked);
      if (!hasMasked) expect(JSON.stringify(message)).toBe(JSON.stringify(client[index]));
    });
    expect(text.slice(text.indexOf('],"system":'))).toContain(
      `"metadata":{"user_id":${JSON.stringify(
        JSON.stringify({
          device_id: 'dev',
          account_uuid: '',
          session_id: '7d3ccfd6-c287-4bce-a0c2-72f4ad5bc0b2',
        }),
      )}}`,
    );
    // A masked result is the same bytes in every later request; the full output is on disk.
    const seen = new Map<string, string>();
    for (const request of requests) {
      for (const block of toolResultsOf(request.json).filter(isMasked)) {
        const bytes = JSON.stringify(block);
        expect(seen.get(block.tool_use_id) ?? bytes).toBe(bytes);
        seen.set(block.tool_use_id, bytes);
      }
    }
    const file = parseMaskedSnippet(toolResultText(string))!.filePath;
    expect(await fs.readFile(file, 'utf8')).toBe(shellOutput(string.tool_use_id));
  });

  it('a gateway restarted mid-session sends exactly the same bytes', async () => {
    const straight = { fixture: await fixtureWith(), upstream: await fakeAnthropic(8) };
    await session(await gateway(straight.fixture, straight.upstream));

    const restarted = { fixture: await fixtureWith(), upstream: await fakeAnthropic(8) };
    const first = await gateway(restarted.fixture, restarted.upstream);
    await session(first, { maxRequests: 5 });
    await first.close();
    await session(await gateway(restarted.fixture, restarted.upstream), { from: 5 });

    const bodies = ({ upstream, fixture }: typeof straight) =>
      messageRequests(upstream).map((request) =>
        request.raw.toString().replaceAll(fixture.root, '<root>'),
      );
    expect(bodies(restarted)).toHaveLength(9);
    expect(bodies(restarted)).toEqual(bodies(straight));
    expect(bodies(straight).at(-1)).toContain('<tool_output_masked ');
  });

  it('forwards the credentials, stores none, and records the real usage', async () => {
    const upstream = await fakeAnthropic(4);
    const fixture = await fixtureWith();
    const running = await gateway(fixture, upstream);
    await session(running);
    await settled(running);
    for (const request of messageRequests(upstream)) {
      expect(request.headers['x-api-key']).toBe(API_KEY);
      expect(request.headers['authorization']).toBe(`Bearer ${API_KEY}`);
      expect(request.headers['anthropic-version']).toBe('2023-06-01');
    }
    const summary = (await (await ownerFetch(running, `${running.url}/api/sessions`)).json()) as {
      sessions: Array<{ requests: number; promptTokens: number; cachedTokens: number }>;
    };
    expect(summary.sessions).toHaveLength(1);
    expect(summary.sessions[0]!.requests).toBe(5);
    expect(summary.sessions[0]!.cachedTokens).toBeGreaterThan(0);
    expect(summary.sessions[0]!.promptTokens).toBeGreaterThan(summary.sessions[0]!.cachedTokens);
    await running.close();
    // Nothing in the state folder holds the key.
    const files = await fs.readdir(fixture.stateDir, { recursive: true });
    for (const file of files) {
      const full = path.join(fixture.stateDir, file);
      if (!(await fs.stat(full)).isFile()) continue;
      expect(await fs.readFile(full, 'utf8'), file).not.toContain(API_KEY);
    }
  });

  it('keeps two sessions that start alike apart, and one session in one conversation', async () => {
    const upstream = await fakeAnthropic(2);
    const running = await gateway(await fixtureWith(), upstream);
    await session(running, { session: 'session-a' });
    await session(running, { session: 'session-b' });
    await settled(running);
    const summary = (await (await ownerFetch(running, `${running.url}/api/sessions`)).json()) as {
      sessions: Array<{ requests: number }>;
    };
    expect(summary.sessions.map((entry) => entry.requests)).toEqual([3, 3]);
  });

  it('finds the session in the header or in metadata.user_id alike: one conversation', async () => {
    const upstream = await fakeAnthropic(8);
    const running = await gateway(await fixtureWith(), upstream);
    await session(running, { maxRequests: 4 });
    await session(running, { from: 4, header: false });
    await settled(running);
    const summary = (await (await ownerFetch(running, `${running.url}/api/sessions`)).json()) as {
      sessions: Array<{ requests: number }>;
    };
    expect(summary.sessions.map((entry) => entry.requests)).toEqual([9]);
    expect(messageRequests(upstream)[4]!.headers['x-claude-code-session-id']).toBeUndefined();
  });

  it('takes a prompt the provider wrote to its cache as cached, not as a cold cache', async () => {
    const coldFlags = async (usage: { input: number; cacheRead: number; cacheWrite: number }) => {
      const fixture = await fixtureWith();
      const running = await gateway(fixture, await fakeAnthropic(2, usage));
      await session(running);
      await running.close();
      const folder = path.join(fixture.stateDir, 'usage');
      const lines = await Promise.all(
        (await fs.readdir(folder)).map((name) => fs.readFile(path.join(folder, name), 'utf8')),
      );
      return lines
        .join('')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { cacheLikelyCold: boolean }).cacheLikelyCold);
    };
    // Every answer wrote the whole prompt and read nothing: the cache holds it for the next one.
    expect(await coldFlags({ input: 10, cacheRead: 0, cacheWrite: 20_000 })).toEqual([
      false,
      false,
      false,
    ]);
    // Nothing read, nothing written, of a prompt worth caching: the provider is not caching it.
    expect(await coldFlags({ input: 20_000, cacheRead: 0, cacheWrite: 0 })).toEqual([
      false,
      true,
      true,
    ]);
  });

  it('forwards count_tokens as it came, after outputs were masked', async () => {
    const upstream = await fakeAnthropic(8);
    const running = await gateway(await fixtureWith(), upstream);
    const { sent } = await session(running);
    const body = JSON.stringify({ model: 'claude-opus-5-5', messages: sent.at(-1) });
    const answer = await post(`${running.url}/anthropic/v1/messages/count_tokens?beta=true`, body, {
      'x-api-key': API_KEY,
    });
    expect(JSON.parse(answer.text)).toEqual({ input_tokens: 1234 });
    const counted = upstream.requests.at(-1)!;
    expect(counted.path).toBe('/v1/messages/count_tokens');
    expect(counted.raw.toString()).toBe(body);
  });

  it("answers its own errors in Anthropic's style", async () => {
    const upstream = await fakeAnthropic(1);
    const running = await gateway(await fixtureWith(), upstream, { maxBodyBytes: 4_096 });
    const malformed = await post(`${running.url}/v1/messages`, '{"messages": [');
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.text)).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: expect.stringMatching(/^toolmask gateway: the request body is not valid JSON/),
        code: 'MALFORMED_JSON',
      },
    });
    const large = await post(`${running.url}/anthropic/v1/messages`, {
      messages: [{ role: 'user', content: 'x'.repeat(10_000) }],
    });
    expect(large.status).toBe(413);
    expect(JSON.parse(large.text).error).toMatchObject({
      type: 'request_too_large',
      code: 'BODY_TOO_LARGE',
    });
    expect(upstream.requests).toHaveLength(0);
  });
});
