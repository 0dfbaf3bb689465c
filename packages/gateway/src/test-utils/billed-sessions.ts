/**
 * Three sessions through one gateway, each billed by a fake with its provider's prefix-cache
 * rules (test-support's fake-prefix-bill): a Claude Code-like one (Messages API, Anthropic's
 * rules), a Codex-like one (Responses API, OpenAI's) and a gemini-cli-like one (Gemini API,
 * Gemini's), each calling the shell `steps` times with bulky outputs. For the net figures' and
 * the dashboard's tests; everything started is handed to `cleanups`.
 */
import { anthropicAnswer, toolResultsOf } from '@toolmask/test-support/fake-anthropic';
import {
  anthropicUsageOf,
  PrefixCacheBill,
  promptUsageOf,
  responsesUsageOf,
} from '@toolmask/test-support/fake-prefix-bill';
import { responsesAnswer, toolOutputsOf } from '@toolmask/test-support/fake-openai-responses';
import {
  geminiAnswer,
  startFakeUpstream,
  type RecordedUpstreamRequest,
  type UpstreamReply,
} from '@toolmask/test-support/fake-upstream';
import type { RunningGateway } from '../listen-gateway.js';
import { runClaudeLikeSession } from './claude-like-session.js';
import {
  gatewayFixture,
  post,
  runGeminiClient,
  settled,
  shellOutput,
  startTestGateway,
} from './gemini-client.js';

export const BILLED_MODELS = {
  claude: 'claude-opus-5-5',
  codex: 'gpt-5-codex',
  gemini: 'gemini-2.5-flash',
} as const;

const bills = () => ({
  anthropic: new PrefixCacheBill({ rules: 'anthropic', arrayPath: ['messages'] }),
  openai: new PrefixCacheBill({ rules: 'openai', arrayPath: ['input'] }),
  gemini: new PrefixCacheBill({ rules: 'gemini', arrayPath: ['contents'] }),
});

function billedReply(
  bill: ReturnType<typeof bills>,
  steps: number,
  request: RecordedUpstreamRequest,
): UpstreamReply {
  if (request.path === '/v1/messages') {
    const step = toolResultsOf(request.json).length;
    const usage = anthropicUsageOf(bill.anthropic.bill('claude', request.json));
    return step < steps
      ? anthropicAnswer(
          [{ toolUse: { id: `toolu_${step}`, name: 'Bash', input: { n: step } } }],
          usage,
        )
      : anthropicAnswer([{ text: 'All built.' }], usage);
  }
  if (request.path === '/v1/responses') {
    const step = toolOutputsOf(request.json).length;
    const usage = responsesUsageOf(bill.openai.bill('codex', request.json));
    return step < steps
      ? responsesAnswer(
          [
            {
              functionCall: {
                callId: `call_${step}`,
                name: 'exec_command',
                arguments: { cmd: `make ${step}` },
              },
            },
          ],
          usage,
        )
      : responsesAnswer([{ text: 'All built.' }], usage);
  }
  const contents = (request.json as { contents?: unknown[] }).contents ?? [];
  const step = Math.floor(contents.length / 2);
  const usage = promptUsageOf(bill.gemini.bill('gemini', request.json));
  return geminiAnswer(
    step < steps
      ? [{ functionCall: { id: `call-${step}`, name: 'run_shell_command', args: { n: step } } }]
      : [{ text: 'done' }],
    usage,
  );
}

/** A Codex-like client: resends its whole input, answers each function call, stops at text. */
async function runCodexLikeSession(url: string, maxRequests: number): Promise<void> {
  const input: unknown[] = [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'build it' }] },
  ];
  for (let request = 0; request < maxRequests; request++) {
    const answer = await post(
      `${url}/v1/responses`,
      { model: BILLED_MODELS.codex, stream: true, input, prompt_cache_key: 'codex-session' },
      { 'user-agent': 'codex_exec/0.169.0 (Debian 12.0.0; x86_64)', authorization: 'Bearer x' },
    );
    const done = answer.events
      .map(
        (event) =>
          event as {
            type?: string;
            item?: { type: string; call_id: string; name: string; arguments: string };
          },
      )
      .filter(
        (event) =>
          event.type === 'response.output_item.done' && event.item?.type === 'function_call',
      );
    if (done.length === 0) return;
    for (const { item } of done) {
      input.push({
        type: 'function_call',
        call_id: item!.call_id,
        name: item!.name,
        arguments: item!.arguments,
      });
      input.push({
        type: 'function_call_output',
        call_id: item!.call_id,
        output: shellOutput(item!.call_id),
      });
    }
  }
}

export interface BilledSessions {
  running: RunningGateway;
  bill: ReturnType<typeof bills>;
}

export async function billedSessionsThroughGateway(
  settings: Record<string, unknown>,
  steps: number,
  cleanups: Array<() => Promise<void>>,
): Promise<BilledSessions> {
  const fixture = await gatewayFixture(settings);
  cleanups.push(fixture.cleanup);
  const bill = bills();
  const upstream = await startFakeUpstream((request) => billedReply(bill, steps, request));
  cleanups.push(() => upstream.close());
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { anthropic: upstream.url, openai: `${upstream.url}/v1`, gemini: upstream.url },
  });
  cleanups.push(() => running.close());
  await runClaudeLikeSession(running.url, { model: BILLED_MODELS.claude, maxRequests: steps + 2 });
  await runCodexLikeSession(running.url, steps + 2);
  await runGeminiClient({
    url: `${running.url}/v1beta/models/${BILLED_MODELS.gemini}:streamGenerateContent?alt=sse`,
    prompt: 'build it',
    outputFor: (call) => ({ output: shellOutput(call.id) }),
    maxRequests: steps + 2,
  });
  await settled(running);
  return { running, bill };
}
