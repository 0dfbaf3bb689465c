/**
 * The OpenAI Responses front through a real gateway, against a scripted loopback fake of the API:
 * a Codex-shaped client (its instructions as a developer message, reasoning items with
 * `encrypted_content`, `exec_command` calls, outputs as strings and content lists) whose old
 * outputs go out masked; the bytes across a gateway restart; the session; credentials; usage;
 * errors.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseMaskedSnippet } from '@toolmask/core';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import {
  responsesAnswer,
  toolOutputsOf,
  toolOutputText,
  type ToolOutputItem,
} from '@toolmask/test-support/fake-openai-responses';
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
import { CODEX_READ_TOOL_NAME } from './codec.js';

const cleanups = cleanUpAfterEach();

type Item = Record<string, unknown>;

const SMALL_BUDGET = { toolProtectionThreshold: 3_000, minPrunableTokensThreshold: 1_000 };
const API_KEY = 'sk-proj-test-secret-0123456789';
const SESSION = '01a23287-37eb-76c1-a31b-cdd2ac8f58c5';

/** A fake Responses API: an `exec_command` call per request until `calls` outputs came back, then text. */
async function fakeResponses(calls: number): Promise<FakeUpstream> {
  const cache = new PrefixCache();
  const upstream = await startFakeUpstream((request) => {
    if (request.path !== '/v1/responses') return { json: { id: 'resp_1', object: 'response' } };
    const body = request.json as { input: Item[] };
    const usage = cache.usage('c', body.input);
    const done = toolOutputsOf(body).length;
    const tokens = { input: usage.prompt, cached: usage.cached };
    return done < calls
      ? responsesAnswer(
          [
            {
              functionCall: {
                callId: `call_${done}`,
                name: 'exec_command',
                arguments: { cmd: `make ${done}` },
              },
            },
          ],
          tokens,
        )
      : responsesAnswer([{ text: 'All built.' }], tokens);
  });
  cleanups.push(() => upstream.close());
  return upstream;
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

async function fixtureWith(settings: Record<string, unknown> = SMALL_BUDGET) {
  const fixture = await gatewayFixture(settings);
  cleanups.push(fixture.cleanup);
  return fixture;
}

/** The calls of a streamed answer (its `response.output_item.done` events). */
function functionCalls(events: unknown[]): Item[] {
  return events.flatMap((event) => {
    const { type, item } = event as { type: string; item?: Item };
    return type === 'response.output_item.done' && item?.['type'] === 'function_call' ? [item] : [];
  });
}

/** The output Codex would send for call `index`: a string, or (every third) content items. */
function outputFor(callId: string, index: number): Item {
  const text = shellOutput(callId);
  if (index % 3 !== 1) {
    return { type: 'function_call_output', id: `fco_${index}`, call_id: callId, output: text };
  }
  return {
    type: 'function_call_output',
    id: `fco_${index}`,
    call_id: callId,
    output: [
      { type: 'input_text', text: 'Wall time: 0.0017 seconds\nOutput:' },
      { type: 'input_text', text },
    ],
  };
}

/**
 * A Codex-like client: resends every item each time, with a reasoning item (opaque
 * `encrypted_content`) before each call it answers. Requests before `from` are played without
 * being sent (a session that a restarted gateway picks up halfway).
 */
async function session(
  running: RunningGateway,
  options: {
    session?: string;
    maxRequests?: number;
    from?: number;
    header?: boolean;
    prefix?: string;
  } = {},
): Promise<{ sent: Item[][]; finalText: string }> {
  const sessionId = options.session ?? SESSION;
  const input: Item[] = [
    {
      type: 'message',
      id: 'msg_622d6ff2-18d4-500d-9d62-54761f8b9e23',
      role: 'developer',
      content: [{ type: 'input_text', text: 'You are a coding agent running in the Codex CLI.' }],
    },
    {
      type: 'message',
      role: 'user',
      content: [
        {
          type: 'input_text',
          text: '<environment_context>\n  <cwd>/w</cwd>\n</environment_context>',
        },
      ],
    },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'build everything' }] },
  ];
  const sent: Item[][] = [];
  let finalText = '';
  for (let request = 0; request < (options.maxRequests ?? 12); request++) {
    const body = {
      model: 'gpt-5-codex',
      instructions: '',
      input,
      tools: [{ type: 'function', name: 'exec_command', parameters: { type: 'object' } }],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      reasoning: { summary: 'auto' },
      store: false,
      stream: true,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: sessionId,
      client_metadata: { session_id: sessionId, turn_id: 'turn-1' },
    };
    const callId = `call_${request}`;
    if (request >= (options.from ?? 0)) {
      sent.push(structuredClone(input));
      const answer = await post(`${running.url}${options.prefix ?? ''}/v1/responses`, body, {
        authorization: `Bearer ${API_KEY}`,
        accept: 'text/event-stream',
        originator: 'codex_exec',
        ...(options.header === false ? {} : { 'session-id': sessionId, 'thread-id': sessionId }),
        'user-agent': 'codex_exec/0.169.0 (Debian 12.0.0; x86_64) xterm (codex_exec; 0.169.0)',
      });
      expect(answer.status).toBe(200);
      const calls = functionCalls(answer.events);
      if (calls.length === 0) {
        finalText = answer.events
          .map((event) => (event as { delta?: string }).delta ?? '')
          .join('');
        break;
      }
      expect(calls.map((call) => call['call_id'])).toEqual([callId]);
    }
    input.push(
      {
        type: 'reasoning',
        id: `rs_${request}`,
        summary: [],
        content: null,
        encrypted_content: `gAAAAB-opaque-${request}==`,
      },
      {
        type: 'function_call',
        id: `fc_${request}`,
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: `make ${request}` }),
        call_id: callId,
      },
      outputFor(callId, request),
    );
  }
  return { sent, finalText };
}

const isMasked = (item: ToolOutputItem) => parseMaskedSnippet(toolOutputText(item)) !== undefined;

const responseRequests = (upstream: FakeUpstream) =>
  upstream.requests.filter((request) => request.path === '/v1/responses');

interface SessionsSummary {
  sessions: Array<{ requests: number; promptTokens: number; cachedTokens: number }>;
}

async function sessionsOf(running: RunningGateway): Promise<SessionsSummary> {
  await settled(running);
  return (await (
    await ownerFetch(running, `${running.url}/api/sessions`)
  ).json()) as SessionsSummary;
}

describe('the OpenAI Responses front', () => {
  it('masks old outputs in later requests, strings and content lists, keeping everything else', async () => {
    const upstream = await fakeResponses(8);
    const running = await gateway(await fixtureWith(), upstream);
    const { sent, finalText } = await session(running);
    expect(finalText).toBe('All built.');
    const requests = responseRequests(upstream);
    expect(requests).toHaveLength(9);

    const last = requests.at(-1)!;
    const outputs = toolOutputsOf(last.json);
    const masked = outputs.filter(isMasked);
    expect(masked.length).toBeGreaterThan(3);
    expect(isMasked(outputs.at(-1)!)).toBe(false);
    // Shapes kept: a string stays a string; a list keeps one text item, the snippet.
    const string = masked.find((item) => typeof item.output === 'string')!;
    expect(string).toEqual({
      type: 'function_call_output',
      id: expect.stringMatching(/^fco_/),
      call_id: string.call_id,
      output: expect.stringContaining(`${CODEX_READ_TOOL_NAME}(`),
    });
    const list = outputs.find((item) => item.call_id === 'call_1')!;
    expect(isMasked(list)).toBe(true);
    expect(list.output).toEqual([
      { type: 'input_text', text: expect.stringMatching(/^<tool_output_masked /) },
    ]);
    // Every item that is no masked output is the client's, in order; so is the rest of the body.
    const body = last.json as { input: Item[] } & Record<string, unknown>;
    const client = sent.at(-1)!;
    expect(body.input).toHaveLength(client.length);
    body.input.forEach((item, index) => {
      const output = toolOutputsOf({ input: [item] })[0];
      if (!output || !isMasked(output)) {
        expect(JSON.stringify(item)).toBe(JSON.stringify(client[index]));
      }
    });
    const text = last.raw.toString();
    expect(text.slice(text.indexOf('],"tools":'))).toBe(
      `],"tools":[{"type":"function","name":"exec_command","parameters":{"type":"object"}}],` +
        `"tool_choice":"auto","parallel_tool_calls":true,"reasoning":{"summary":"auto"},` +
        `"store":false,"stream":true,"include":["reasoning.encrypted_content"],` +
        `"prompt_cache_key":"${SESSION}","client_metadata":{"session_id":"${SESSION}","turn_id":"turn-1"}}`,
    );
    // A masked output is the same bytes in every later request; the full output is on disk.
    const seen = new Map<string, string>();
    for (const request of requests) {
      for (const item of toolOutputsOf(request.json).filter(isMasked)) {
        const bytes = JSON.stringify(item);
        expect(seen.get(item.call_id) ?? bytes).toBe(bytes);
        seen.set(item.call_id, bytes);
      }
    }
    const file = parseMaskedSnippet(toolOutputText(string))!.filePath;
    expect(await fs.readFile(file, 'utf8')).toBe(shellOutput(string.call_id));
  });

  it('a gateway restarted mid-session sends exactly the same bytes', async () => {
    const straight = { fixture: await fixtureWith(), upstream: await fakeResponses(8) };
    await session(await gateway(straight.fixture, straight.upstream));

    const restarted = { fixture: await fixtureWith(), upstream: await fakeResponses(8) };
    const first = await gateway(restarted.fixture, restarted.upstream);
    await session(first, { maxRequests: 5 });
    await first.close();
    await session(await gateway(restarted.fixture, restarted.upstream), { from: 5 });

    const bodies = ({ upstream, fixture }: typeof straight) =>
      responseRequests(upstream).map((request) =>
        request.raw.toString().replaceAll(fixture.root, '<root>'),
      );
    expect(bodies(restarted)).toHaveLength(9);
    expect(bodies(restarted)).toEqual(bodies(straight));
    expect(bodies(straight).at(-1)).toContain('<tool_output_masked ');
  });

  it('forwards the credentials, stores none, and records the real usage', async () => {
    const upstream = await fakeResponses(4);
    const fixture = await fixtureWith();
    const running = await gateway(fixture, upstream);
    await session(running, { prefix: '/openai' });
    for (const request of responseRequests(upstream)) {
      expect(request.headers['authorization']).toBe(`Bearer ${API_KEY}`);
      expect(request.headers['session-id']).toBe(SESSION);
      expect(request.headers['originator']).toBe('codex_exec');
    }
    const summary = await sessionsOf(running);
    expect(summary.sessions).toHaveLength(1);
    expect(summary.sessions[0]!.requests).toBe(5);
    expect(summary.sessions[0]!.cachedTokens).toBeGreaterThan(0);
    expect(summary.sessions[0]!.promptTokens).toBeGreaterThan(summary.sessions[0]!.cachedTokens);
    await running.close();
    const files = await fs.readdir(fixture.stateDir, { recursive: true });
    for (const file of files) {
      const full = path.join(fixture.stateDir, file);
      if (!(await fs.stat(full)).isFile()) continue;
      const content = await fs.readFile(full, 'utf8');
      expect(content, file).not.toContain(API_KEY);
      if (file.includes('usage')) expect(content, file).toContain('"front":"openai-responses"');
    }
  });

  it('keeps two sessions apart, and finds one in the header or in prompt_cache_key alike', async () => {
    const upstream = await fakeResponses(8);
    const running = await gateway(await fixtureWith(), upstream);
    await session(running, { session: 'session-a', maxRequests: 3 });
    await session(running, { session: 'session-b', maxRequests: 3 });
    await session(running, { session: 'session-a', from: 3, header: false });
    expect(responseRequests(upstream).at(-1)!.headers['session-id']).toBeUndefined();
    const summary = await sessionsOf(running);
    expect(summary.sessions.map((entry) => entry.requests).sort()).toEqual([3, 9]);
  });

  it('forwards the other paths as they are, and answers its own errors in OpenAI style', async () => {
    const upstream = await fakeResponses(1);
    const running = await gateway(await fixtureWith(), upstream);
    const retrieved = await fetch(`${running.url}/openai/v1/responses/resp_1?include=x`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    expect(await retrieved.json()).toEqual({ id: 'resp_1', object: 'response' });
    expect(upstream.requests.at(-1)).toMatchObject({
      method: 'GET',
      path: '/v1/responses/resp_1',
      query: 'include=x',
    });
    const malformed = await post(`${running.url}/v1/responses`, '{"input": [');
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.text)).toEqual({
      error: {
        message: expect.stringMatching(/^toolmask gateway: the request body is not valid JSON/),
        type: 'toolmask_gateway_error',
        code: 'MALFORMED_JSON',
        status: 400,
      },
    });
    expect(upstream.requests).toHaveLength(1);
  });
});
