/**
 * The request shapes of Code Assist (Login with Google), Vertex AI and the Gemini API through the
 * gateway, as gemini-cli 0.61.0 sends them (recorded bodies), against a fake upstream.
 */
import { describe, expect, it } from 'vitest';
import {
  codeAssistAnswer,
  geminiAnswer,
  startFakeUpstream,
  type FakeUpstream,
} from '@toolmask/test-support/fake-upstream';
import {
  gatewayFixture,
  post,
  runGeminiClient,
  shellOutput,
  startTestGateway,
  type ContentLike,
} from '../test-utils/gemini-client.js';
import type { RunningGateway } from '../listen-gateway.js';
import { CLIENT_MASKING_OFF_FLAGS } from './gemini/client-masking.js';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';

const cleanups = cleanUpAfterEach();

const SNIPPET = /^<tool_output_masked /;

async function setUp(
  upstreamKey: 'gemini' | 'vertex' | 'codeAssist',
  respond: Parameters<typeof startFakeUpstream>[0],
): Promise<{ upstream: FakeUpstream; running: RunningGateway }> {
  const fixture = await gatewayFixture({
    toolProtectionThreshold: 8_000,
    minPrunableTokensThreshold: 8_000,
  });
  cleanups.push(fixture.cleanup);
  const upstream = await startFakeUpstream(respond);
  cleanups.push(() => upstream.close());
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { [upstreamKey]: upstream.url },
  });
  cleanups.push(() => running.close());
  return { upstream, running };
}

/** The fake model: a shell call per step until `calls`, then text. */
function callsThenText(calls: number, wrapped: boolean) {
  return (contents: unknown[]) => {
    const step = Math.floor(contents.length / 2);
    const parts =
      step < calls
        ? [
            {
              functionCall: {
                id: `c${step}`,
                name: 'run_shell_command',
                args: { command: `step ${step}` },
              },
            },
          ]
        : [{ text: 'done' }];
    const usage = { prompt: 5_000, cached: 4_000 };
    return wrapped ? codeAssistAnswer(parts, usage) : geminiAnswer(parts, usage);
  };
}

function outputsIn(contents: ContentLike[]): string[] {
  return contents.flatMap((content) =>
    content.parts.flatMap((part) => {
      const response = (part['functionResponse'] as { response?: { output?: string } } | undefined)
        ?.response;
      return response?.output !== undefined ? [response.output] : [];
    }),
  );
}

describe('Code Assist (Login with Google)', () => {
  it('masks inside the wrapped request, keeps the wrapper, answers stream back wrapped', async () => {
    const model = callsThenText(8, true);
    const { upstream, running } = await setUp('codeAssist', (request) => {
      if (request.path.endsWith(':streamGenerateContent')) {
        return model((request.json as { request: { contents: unknown[] } }).request.contents);
      }
      return { json: {} };
    });
    const { answers } = await runGeminiClient({
      url: `${running.url}/code-assist/v1internal:streamGenerateContent?alt=sse`,
      prompt: 'fix it',
      outputFor: (call) => ({ output: shellOutput(call.id) }),
      maxRequests: 12,
      wrap: (contents) => ({
        model: 'gemini-2.5-flash',
        project: 'fake-project',
        user_prompt_id: 'p-1',
        request: { contents, generationConfig: { temperature: 1 }, session_id: 'session-1' },
      }),
    });
    expect(answers.at(-1)?.events).toHaveLength(1);
    const last = upstream.matching(/streamGenerateContent$/).at(-1)!.json as {
      model: string;
      project: string;
      user_prompt_id: string;
      request: { contents: ContentLike[]; session_id: string; generationConfig: unknown };
    };
    expect(last).toMatchObject({
      model: 'gemini-2.5-flash',
      project: 'fake-project',
      user_prompt_id: 'p-1',
      request: { session_id: 'session-1', generationConfig: { temperature: 1 } },
    });
    const outputs = outputsIn(last.request.contents);
    expect(outputs.filter((output) => SNIPPET.test(output)).length).toBeGreaterThan(0);
    expect(outputs.at(-1)).toBe(shellOutput('c7'));
  });

  it("turns gemini-cli's own masking off in listExperiments, keeping the other flags", async () => {
    const { running } = await setUp('codeAssist', () => ({
      json: {
        experimentIds: [7],
        flags: [
          { flagId: 1, boolValue: true },
          { flagId: CLIENT_MASKING_OFF_FLAGS[0].flagId, intValue: '50000' },
        ],
      },
    }));
    const answer = await post(`${running.url}/code-assist/v1internal:listExperiments`, {
      project: 'p',
    });
    expect(JSON.parse(answer.text)).toEqual({
      experimentIds: [7],
      flags: [{ flagId: 1, boolValue: true }, ...CLIENT_MASKING_OFF_FLAGS],
    });
  });

  it('other Code Assist calls pass through untouched', async () => {
    const { upstream, running } = await setUp('codeAssist', () => ({
      json: { currentTier: { id: 'standard-tier' } },
    }));
    const body = '{"metadata":{"ideType":"IDE_UNSPECIFIED"}}';
    const answer = await post(`${running.url}/v1internal:loadCodeAssist`, body, {
      authorization: 'Bearer user-oauth-token',
    });
    expect(JSON.parse(answer.text)).toEqual({ currentTier: { id: 'standard-tier' } });
    expect(upstream.requests[0]!.raw.toString()).toBe(body);
    expect(upstream.requests[0]!.headers['authorization']).toBe('Bearer user-oauth-token');
  });
});

describe('Vertex AI', () => {
  it('routes project/location paths and API-key paths, masking both', async () => {
    const model = callsThenText(8, false);
    const { upstream, running } = await setUp('vertex', (request) =>
      model((request.json as { contents: unknown[] }).contents),
    );
    for (const path of [
      '/vertex/v1beta1/projects/p1/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
      '/v1beta1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    ]) {
      await runGeminiClient({
        url: `${running.url}${path}`,
        prompt: `task for ${path}`,
        outputFor: (call) => ({ output: shellOutput(`${path}-${call.id}`) }),
        maxRequests: 12,
        headers: { 'x-goog-api-key': 'vertex-key' },
      });
    }
    const requests = upstream.matching(/streamGenerateContent$/);
    expect(requests[0]!.path).toBe(
      '/v1beta1/projects/p1/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent',
    );
    expect(requests.at(-1)!.path).toBe(
      '/v1beta1/publishers/google/models/gemini-2.5-flash:streamGenerateContent',
    );
    expect(requests.every((request) => request.headers['x-goog-api-key'] === 'vertex-key')).toBe(
      true,
    );
    const masked = requests.filter((request) =>
      outputsIn((request.json as { contents: ContentLike[] }).contents).some((output) =>
        SNIPPET.test(output),
      ),
    );
    expect(masked.length).toBeGreaterThan(2);
  });
});

describe('countTokens', () => {
  it('counts what would be sent: the recorded decisions applied, nothing new decided', async () => {
    const model = callsThenText(8, false);
    const { upstream, running } = await setUp('gemini', (request) =>
      request.path.endsWith(':countTokens')
        ? { json: { totalTokens: 1 } }
        : model((request.json as { contents: unknown[] }).contents),
    );
    const { history } = await runGeminiClient({
      url: `${running.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
      prompt: 'go',
      outputFor: (call) => ({ output: shellOutput(call.id) }),
      maxRequests: 12,
    });
    const lastSent = upstream.matching(/streamGenerateContent$/).at(-1)!.json as {
      contents: ContentLike[];
    };
    await post(`${running.url}/v1beta/models/gemini-2.5-flash:countTokens`, {
      contents: history.slice(0, -1),
    });
    const counted = upstream.matching(/countTokens$/)[0]!.json as { contents: ContentLike[] };
    expect(counted.contents).toEqual(lastSent.contents.slice(0, history.length - 1));
  });
});
