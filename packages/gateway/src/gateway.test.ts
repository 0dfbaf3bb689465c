/**
 * The gateway end to end on loopback: a gemini-cli-like client that resends its whole unmasked
 * history, the gateway on a real port, a scripted fake upstream that records what it was sent.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  geminiAnswer,
  startFakeUpstream,
  type FakeUpstream,
  type RecordedUpstreamRequest,
} from '@toolmask/test-support/fake-upstream';
import {
  gatewayFixture,
  post,
  runGeminiClient,
  settled,
  shellOutput,
  startTestGateway,
  type ContentLike,
  ownerFetch,
} from './test-utils/gemini-client.js';
import type { RunningGateway } from './listen-gateway.js';
import { shellSessionThroughGateway } from './test-utils/shell-session.js';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { scriptedShellUpstream } from './test-utils/scripted-upstream.js';

const MODEL_PATH = '/v1beta/models/gemini-2.5-flash:streamGenerateContent';
const SNIPPET = /^<tool_output_masked lines="\d+" bytes="\d+" file="([^"]+)">/;

const cleanups = cleanUpAfterEach();

/** The scripted model (test-utils/scripted-upstream.ts), closed after the test. */
async function scriptedUpstream(calls: number): Promise<FakeUpstream> {
  const upstream = await scriptedShellUpstream(calls);
  cleanups.push(() => upstream.close());
  return upstream;
}

async function gatewayFor(upstream: FakeUpstream, stateDir: string, settingsFile: string) {
  const running = await startTestGateway({
    stateDir,
    settingsFile,
    upstreams: { gemini: upstream.url },
  });
  return running;
}

/**
 * A gateway on a fresh fixture (`settings`, else the fixture's own) before a scripted upstream of
 * `calls` shell calls; all of it closed after the test.
 */
async function startedGateway(calls: number, settings?: Record<string, unknown>) {
  const fixture = await gatewayFixture(settings);
  cleanups.push(fixture.cleanup);
  const upstream = await scriptedUpstream(calls);
  const running = await gatewayFor(upstream, fixture.stateDir, fixture.settingsFile);
  cleanups.push(() => running.close());
  return { fixture, upstream, running };
}

function responsesOf(request: RecordedUpstreamRequest): Array<{ id: string; output: string }> {
  const contents = (request.json as { contents: ContentLike[] }).contents;
  return contents.flatMap((content) =>
    content.parts
      .map(
        (part) =>
          part['functionResponse'] as { id: string; response: { output: string } } | undefined,
      )
      .filter((response) => response !== undefined)
      .map((response) => ({ id: response.id, output: response.response.output })),
  );
}

describe('the gateway in front of a Gemini API upstream', () => {
  it('masks old outputs, keeps the newest whole, and resends each masked output as the same bytes', async () => {
    const { upstream, running } = await startedGateway(12);

    const { answers } = await runGeminiClient({
      url: `${running.url}${MODEL_PATH}?alt=sse`,
      prompt: 'build it',
      outputFor: (call) => ({ output: shellOutput(call.id) }),
      maxRequests: 20,
    });
    expect(answers.at(-1)?.status).toBe(200);
    const requests = upstream.matching(/streamGenerateContent$/);
    expect(requests).toHaveLength(13);

    // Every functionCall has its functionResponse, same ids, in every request.
    for (const request of requests) {
      const contents = (request.json as { contents: ContentLike[] }).contents;
      contents.forEach((content, index) => {
        const callIds = content.parts
          .map((part) => (part['functionCall'] as { id?: string } | undefined)?.id)
          .filter(Boolean);
        if (callIds.length === 0) return;
        const next = contents[index + 1];
        const responseIds = next?.parts.map(
          (part) => (part['functionResponse'] as { id: string }).id,
        );
        expect(responseIds).toEqual(callIds);
      });
    }
    // Old outputs masked, the newest whole.
    const last = responsesOf(requests.at(-1)!);
    expect(last.at(-1)?.output).toBe(shellOutput('call-11'));
    const masked = last.filter((response) => SNIPPET.test(response.output));
    expect(masked.length).toBeGreaterThan(3);
    // The snippet names the MCP read-back tool, and the search /mcp offers beside it.
    expect(masked[0]!.output).toContain(
      'mcp_toolmask_read_tool_output(file, offset, limit, pattern) or mcp_toolmask_search_tool_outputs(query).',
    );
    // Once masked, an output is the same bytes in every later request.
    const firstSeen = new Map<string, string>();
    for (const request of requests) {
      for (const response of responsesOf(request)) {
        if (!SNIPPET.test(response.output)) continue;
        const seen = firstSeen.get(response.id);
        if (seen === undefined) firstSeen.set(response.id, response.output);
        else expect(response.output).toBe(seen);
      }
    }
    // Masking events were batched: each one broke the prefix of one request only.
    const changedPrefix = requests.slice(1).filter((request, index) => {
      const before = responsesOf(requests[index]!);
      const after = responsesOf(request);
      return before.some((response, position) => after[position]?.output !== response.output);
    });
    expect(changedPrefix.length).toBeLessThanOrEqual(3);

    // The full outputs are on disk, byte for byte.
    const file = SNIPPET.exec(masked[0]!.output)![1]!;
    const id = masked[0]!.id;
    expect(await fs.readFile(file, 'utf8')).toBe(shellOutput(id));
    const mode = (await fs.stat(file)).mode & 0o777;
    expect(mode).toBe(0o600);
  });

  it('a gateway restarted mid-session sends exactly the same bytes: no extra cache break', async () => {
    const straight = await gatewayFixture();
    const restarted = await gatewayFixture();
    cleanups.push(straight.cleanup, restarted.cleanup);
    const bodies: string[][] = [];
    for (const [fixture, restartAt] of [
      [straight, -1],
      [restarted, 6],
    ] as const) {
      const upstream = await scriptedUpstream(12);
      let running: RunningGateway = await gatewayFor(
        upstream,
        fixture.stateDir,
        fixture.settingsFile,
      );
      const history: ContentLike[] = [{ role: 'user', parts: [{ text: 'build it' }] }];
      for (let request = 0; request < 14; request++) {
        if (request === restartAt) {
          await running.close();
          running = await gatewayFor(upstream, fixture.stateDir, fixture.settingsFile);
        }
        const result = await runGeminiClient({
          url: `${running.url}${MODEL_PATH}?alt=sse`,
          prompt: 'build it',
          history,
          outputFor: (call) => ({ output: shellOutput(call.id) }),
          maxRequests: 1,
        });
        if (result.answers[0]?.events.length === 0) break;
      }
      await running.close();
      // The snippets name the state folder; compare with it replaced.
      bodies.push(
        upstream
          .matching(/streamGenerateContent$/)
          .map((request) => request.raw.toString('utf8').split(fixture.stateDir).join('<state>')),
      );
      await upstream.close();
    }
    expect(bodies[1]!.length).toBe(bodies[0]!.length);
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[0]!.some((body) => body.includes('tool_output_masked'))).toBe(true);
  });

  it('keeps conversations apart and records their real usage for /api/sessions', async () => {
    const { fixture, running } = await startedGateway(3);
    for (const prompt of ['first task', 'second task']) {
      await runGeminiClient({
        url: `${running.url}${MODEL_PATH}?alt=sse`,
        prompt,
        outputFor: (call) => ({ output: shellOutput(`${prompt}-${call.id}`, 50) }),
        maxRequests: 10,
        headers: { 'user-agent': 'GeminiCLI-tui/0.61.0/gemini-2.5-flash (linux; x64; terminal)' },
      });
    }
    await settled(running);
    const sessions = (await (await ownerFetch(running, `${running.url}/api/sessions`)).json()) as {
      totals: { sessions: number; requests: number; promptTokens: number };
      sessions: Array<{
        client: string;
        requests: number;
        promptTokens: number;
        cachedTokens: number;
      }>;
    };
    expect(sessions.totals.sessions).toBe(2);
    expect(sessions.totals.requests).toBe(8);
    for (const session of sessions.sessions) {
      expect(session.client).toBe('gemini-cli');
      expect(session.requests).toBe(4);
      expect(session.promptTokens).toBeGreaterThan(0);
      expect(session.cachedTokens).toBeGreaterThan(0);
    }
    const usageFiles = await fs.readdir(path.join(fixture.stateDir, 'usage'));
    expect(usageFiles).toHaveLength(1);
  });
});

describe('masking off', () => {
  it('forwards every body as it came, keeps no history, and still counts the conversation', async () => {
    const { upstream, running } = await startedGateway(0, { enabled: false });
    const history = [
      { role: 'user', parts: [{ text: 'go' }] },
      { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'run_shell_command' } }] },
    ];
    const output = shellOutput('c1', 2_000);
    // Spacing a serializer would not write: only bytes forwarded untouched keep it.
    const bodies = [1, 2].map((turn) =>
      JSON.stringify({
        contents: [
          ...history,
          {
            role: 'user',
            parts: [
              { functionResponse: { id: 'c1', name: 'run_shell_command', response: { output } } },
            ],
          },
          ...(turn === 2
            ? [
                { role: 'model', parts: [{ text: 'done' }] },
                { role: 'user', parts: [{ text: 'thanks' }] },
              ]
            : []),
        ],
      }).replace('"contents":[', '"contents": [ '),
    );
    for (const body of bodies) await post(`${running.url}${MODEL_PATH}?alt=sse`, body);
    await settled(running);
    expect(upstream.requests.map((request) => request.raw.toString('utf8'))).toEqual(bodies);
    expect(running.gateway.stats().retainedBytes).toBe(0);
    const sessions = (await (await ownerFetch(running, `${running.url}/api/sessions`)).json()) as {
      totals: { sessions: number; requests: number };
    };
    expect(sessions.totals).toMatchObject({ sessions: 1, requests: 2 });
  });
});

/** One shell call and its 400-line output, as gemini-cli sends them. */
const shellTurn = (id: string) => [
  { role: 'model', parts: [{ functionCall: { id, name: 'run_shell_command' } }] },
  {
    role: 'user',
    parts: [
      {
        functionResponse: {
          id,
          name: 'run_shell_command',
          response: { output: shellOutput(id, 400) },
        },
      },
    ],
  },
];

/** A gateway whose settings mask early, and a history of four shell turns that it masks. */
async function maskingEarlyWithShellHistory() {
  const { fixture, upstream, running } = await startedGateway(0, {
    toolProtectionThreshold: 2_000,
    minPrunableTokensThreshold: 1_000,
  });
  const history = [
    { role: 'user', parts: [{ text: 'go' }] },
    ...shellTurn('c0'),
    ...shellTurn('c1'),
  ];
  history.push(...shellTurn('c2'), ...shellTurn('c3'));
  return { fixture, upstream, running, history };
}

describe('a body that is not UTF-8', () => {
  it('in a conversation with masked outputs: goes out as it came, byte for byte', async () => {
    const { upstream, running, history } = await maskingEarlyWithShellHistory();
    const send = (body: Buffer) =>
      fetch(`${running.url}${MODEL_PATH}?alt=sse`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      }).then((answer) => answer.text());
    await send(Buffer.from(JSON.stringify({ contents: history })));
    expect(upstream.requests[0]!.raw.toString('utf8')).toMatch(/<tool_output_masked/);
    // The next turn: the history as before (read already), then a stray byte in its question.
    history.push({ role: 'model', parts: [{ text: 'done' }] });
    history.push({ role: 'user', parts: [{ text: 'and now?' }] });
    const next = Buffer.from(JSON.stringify({ contents: history }));
    next[next.lastIndexOf('now?')] = 0xff;
    await send(next);
    await settled(running);
    // Decoded, the byte would be U+FFFD and the outputs masked: sent as it came instead.
    expect(upstream.requests[1]!.raw.equals(next)).toBe(true);
  });
});

describe('masking turned off in a conversation', () => {
  it('keeps what it masked before as the same bytes, and masks nothing new', async () => {
    const { fixture, upstream, running, history } = await maskingEarlyWithShellHistory();
    await post(`${running.url}${MODEL_PATH}?alt=sse`, { contents: history });
    const first = upstream.requests[0]!.raw.toString('utf8');
    const snippets = first.match(/<tool_output_masked[^>]*>/g) ?? [];
    expect(snippets.length).toBeGreaterThan(0);

    await fs.writeFile(
      fixture.settingsFile,
      JSON.stringify({ experimental: { toolOutputMasking: { enabled: false } } }),
    );
    history.push({ role: 'model', parts: [{ text: 'done' }] }, ...shellTurn('c4'));
    await post(`${running.url}${MODEL_PATH}?alt=sse`, { contents: history });
    await settled(running);
    const second = upstream.requests[1]!.raw.toString('utf8');
    expect(second.match(/<tool_output_masked[^>]*>/g) ?? []).toEqual(snippets);
    // The newest output goes whole (nothing new is masked).
    const last = (upstream.requests[1]!.json as { contents: ContentLike[] }).contents.at(-1);
    const newest = last?.parts[0]?.['functionResponse'] as { response: { output: string } };
    expect(newest.response.output).toBe(shellOutput('c4', 400));
  });
});

describe('the memory bound', () => {
  // A conversation over the bound on its own drops its history after each request; the request
  // being handled must still be written from it, masked, with no failure counted.
  it('a conversation over the bound still goes out masked, with no failure', async () => {
    const { running } = await shellSessionThroughGateway(
      {
        settings: { toolProtectionThreshold: 4_000, minPrunableTokensThreshold: 2_000 },
        steps: 7,
        gateway: { maxRetainedBytes: 1 },
      },
      cleanups,
    );
    const sessions = (await (await ownerFetch(running, `${running.url}/api/sessions`)).json()) as {
      totals: { requests: number; maskedOutputs: number; failures: number };
    };
    expect(sessions.totals.requests).toBeGreaterThan(0);
    expect(sessions.totals.maskedOutputs).toBeGreaterThan(0);
    expect(sessions.totals.failures).toBe(0);
    expect(running.gateway.stats().retainedBytes).toBe(0);
  });
});

describe('bad input and failures leave state intact', () => {
  async function setUp(respond?: Parameters<typeof startFakeUpstream>[0]) {
    const fixture = await gatewayFixture();
    cleanups.push(fixture.cleanup);
    const upstream = await startFakeUpstream(
      respond ?? (() => geminiAnswer([{ text: 'ok' }], { prompt: 10, cached: 0 })),
    );
    cleanups.push(() => upstream.close());
    const running = await startTestGateway({
      stateDir: fixture.stateDir,
      settingsFile: fixture.settingsFile,
      upstreams: { gemini: upstream.url },
      maxBodyBytes: 64 * 1024,
    });
    cleanups.push(() => running.close());
    return { fixture, upstream, running };
  }

  it('a malformed JSON body: 400 in the Gemini error style, nothing forwarded', async () => {
    const { running, upstream } = await setUp();
    const answer = await post(`${running.url}${MODEL_PATH}`, '{ "contents": [ oops');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({
      error: {
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: expect.stringMatching(/^toolmask gateway: the request body is not valid JSON/),
      },
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it('a body over the limit: 413, nothing forwarded', async () => {
    const { running, upstream } = await setUp();
    const answer = await post(`${running.url}${MODEL_PATH}`, {
      contents: [{ role: 'user', parts: [{ text: 'x'.repeat(100_000) }] }],
    });
    expect(answer.status).toBe(413);
    expect(answer.text).toMatch(/larger than 65536 bytes/);
    expect(upstream.requests).toHaveLength(0);
  });

  it('an unknown path is proxied as it is, with the upstream status', async () => {
    const { running, upstream } = await setUp(() => ({ status: 404, text: '{"error":"nope"}' }));
    const answer = await fetch(`${running.url}/v9/whatever?x=1`);
    expect(answer.status).toBe(404);
    expect(await answer.text()).toBe('{"error":"nope"}');
    expect(upstream.requests[0]).toMatchObject({ path: '/v9/whatever', query: 'x=1' });
  });

  it('the upstream down: 502 naming it; the next request works once it is back', async () => {
    const fixture = await gatewayFixture();
    cleanups.push(fixture.cleanup);
    const running = await startTestGateway({
      stateDir: fixture.stateDir,
      settingsFile: fixture.settingsFile,
      upstreams: { gemini: 'http://127.0.0.1:9' },
    });
    cleanups.push(() => running.close());
    const answer = await post(`${running.url}${MODEL_PATH}?alt=sse`, {
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
    });
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.text).error.message).toMatch(
      /^toolmask gateway: the upstream http:\/\/127\.0\.0\.1:9 could not be reached/,
    );
  });

  it('an upstream cut mid-stream cuts the client stream; the gateway goes on', async () => {
    let cut = true;
    const { running } = await setUp(() => {
      const answer = geminiAnswer([{ text: 'partial' }], { prompt: 10, cached: 0 }) as {
        sse: unknown[];
      };
      if (!cut) return answer;
      cut = false;
      return { sse: [...answer.sse, ...answer.sse], cutAfter: 1 };
    });
    const body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
    await expect(
      fetch(`${running.url}${MODEL_PATH}?alt=sse`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((answer) => answer.text()),
    ).rejects.toThrow();
    const again = await post(`${running.url}${MODEL_PATH}?alt=sse`, body);
    expect(again.status).toBe(200);
  });

  it('a number JavaScript cannot carry exactly: the body goes out byte for byte', async () => {
    const { running, upstream } = await setUp();
    const raw = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"seed":12345678901234567890}}`;
    await post(`${running.url}${MODEL_PATH}?alt=sse`, raw);
    expect(upstream.requests[0]!.raw.toString('utf8')).toBe(raw);
  });
});
