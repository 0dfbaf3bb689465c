/**
 * An Anthropic session as Claude Code makes one, for the usage and dashboard tests: a scripted
 * Messages fake that calls Bash `steps` times with the cache figures `usage(step)` gives, and a
 * client that answers each call with a bulky result under Claude Code's real user agent and
 * session header, finished when this resolves.
 */
import { expect } from 'vitest';
import {
  anthropicAnswer,
  toolResultsOf,
  type AnthropicUsage,
} from '@toolmask/test-support/fake-anthropic';
import { startFakeUpstream, type FakeUpstream } from '@toolmask/test-support/fake-upstream';
import { post, shellOutput } from './gemini-client.js';

/** What claude 2.1.328 sends in its terminal (`(external, sdk-cli)` with `-p`). */
export const CLAUDE_CODE_USER_AGENT = 'claude-cli/2.1.328 (external, cli)';

/** The fake Messages API: a Bash call per request until `steps` results came back, then text. */
export function claudeLikeUpstream(
  steps: number,
  usage: (step: number) => AnthropicUsage,
): Promise<FakeUpstream> {
  return startFakeUpstream((request) => {
    if (request.path !== '/v1/messages') return { status: 404, json: { type: 'error' } };
    const step = toolResultsOf(request.json).length;
    return step < steps
      ? anthropicAnswer(
          [{ toolUse: { id: `toolu_${step}`, name: 'Bash', input: { command: `make ${step}` } } }],
          usage(step),
        )
      : anthropicAnswer([{ text: 'All built.' }], usage(step));
  });
}

/** The client: resends every message, answers each tool call, stops at a text answer. */
export async function runClaudeLikeSession(
  gatewayUrl: string,
  options: { session?: string; maxRequests?: number; model?: string } = {},
): Promise<number> {
  const messages: Array<Record<string, unknown>> = [
    { role: 'user', content: [{ type: 'text', text: 'build everything' }] },
  ];
  const maxRequests = options.maxRequests ?? 20;
  for (let request = 1; request <= maxRequests; request++) {
    const answer = await post(
      `${gatewayUrl}/v1/messages?beta=true`,
      { model: options.model ?? 'claude-opus-5-5', max_tokens: 1_000, stream: true, messages },
      {
        'user-agent': CLAUDE_CODE_USER_AGENT,
        'x-api-key': 'x',
        'anthropic-version': '2023-06-01',
        'x-claude-code-session-id': options.session ?? '7d3ccfd6-c287-4bce-a0c2-72f4ad5bc0b2',
      },
    );
    expect(answer.status).toBe(200);
    const call = answer.events
      .map((event) => (event as { content_block?: { type: string; id: string } }).content_block)
      .find((block) => block?.type === 'tool_use');
    if (!call) return request;
    messages.push(
      { role: 'assistant', content: [{ type: 'tool_use', id: call.id, name: 'Bash', input: {} }] },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: call.id, content: shellOutput(call.id) }],
      },
    );
  }
  return maxRequests;
}
