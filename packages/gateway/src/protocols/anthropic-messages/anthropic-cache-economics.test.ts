/**
 * The Anthropic front hands its provider's cache economics to the pass: a warm batch that pays for
 * a cache break at no write premium (the OpenAI chat front, the same outputs and settings, masks
 * it) is left whole through the Anthropic front, where the break's re-write costs 1.25x; a batch
 * large enough for Anthropic's prices is masked through both.
 */
import { CACHE_ECONOMICS, parseMaskedSnippet } from '@toolmask/core';
import { estimateFunctionResponseTokens } from '@toolmask/core/estimator';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import {
  anthropicAnswer,
  toolResultsOf,
  toolResultText,
} from '@toolmask/test-support/fake-anthropic';
import { openAiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import { GEMINI_API_PROTOCOL } from '../gemini/index.js';
import { OPENAI_CHAT_PROTOCOL } from '../openai-chat/index.js';
import { OPENAI_RESPONSES_PROTOCOL } from '../openai-responses/index.js';
import { ANTHROPIC_MESSAGES_PROTOCOL } from './index.js';
import {
  gatewayFixture,
  post,
  shellOutput,
  startTestGateway,
} from '../../test-utils/gemini-client.js';

const cleanups = cleanUpAfterEach();

const IDS = ['a', 'b', 'c', 'd'];
const output = (id: string) => shellOutput(id, 300);

/**
 * With no protected window, every output but the newest (the turn being sent) is prunable: what
 * the pass counts of them, as both fronts hand them over (`{ output: text }`).
 */
const PRUNABLE = IDS.slice(0, -1).reduce(
  (sum, id) => sum + estimateFunctionResponseTokens({ output: output(id) }),
  0,
);

/** The masked flags of the tool outputs the upstream received, through each front. */
async function maskedThrough(minPrunableTokensThreshold: number) {
  const fixture = await gatewayFixture({ toolProtectionThreshold: 0, minPrunableTokensThreshold });
  cleanups.push(fixture.cleanup);
  const upstream = await startFakeUpstream((request) =>
    request.path === '/v1/messages'
      ? anthropicAnswer([{ text: 'Done.' }])
      : openAiAnswer({ content: 'Done.' }),
  );
  cleanups.push(() => upstream.close());
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { anthropic: upstream.url, openai: `${upstream.url}/v1` },
  });
  cleanups.push(() => running.close());

  // The same four outputs, each answering one call, in each API's shape; one request each (the
  // first of its conversation: the cache counts as warm, so the warm trigger decides).
  await post(
    `${running.url}/v1/messages`,
    {
      model: 'claude-opus-5-5',
      max_tokens: 1024,
      messages: [
        { role: 'user', content: 'build everything' },
        ...IDS.flatMap((id) => [
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id, name: 'Bash', input: { command: `make ${id}` } }],
          },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: id, content: output(id) }],
          },
        ]),
      ],
    },
    { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
  );
  await post(`${running.url}/openai/v1/chat/completions`, {
    model: 'q',
    messages: [
      { role: 'user', content: 'build everything' },
      ...IDS.flatMap((id) => [
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id,
              type: 'function',
              function: { name: 'Bash', arguments: `{"command":"make ${id}"}` },
            },
          ],
        },
        { role: 'tool', tool_call_id: id, content: output(id) },
      ]),
    ],
  });

  const anthropic = upstream.requests.find((request) => request.path === '/v1/messages');
  const chat = upstream.requests.find((request) => request.path === '/v1/chat/completions');
  const chatOutputs = (
    chat?.json as { messages: Array<{ role: string; content: string }> }
  ).messages
    .filter((message) => message.role === 'tool')
    .map((message) => message.content);
  return {
    anthropic: toolResultsOf(anthropic?.json).map(
      (block) => parseMaskedSnippet(toolResultText(block)) !== undefined,
    ),
    openai: chatOutputs.map((text) => parseMaskedSnippet(text) !== undefined),
  };
}

describe("the provider's cache economics in the pass", () => {
  it('each front declares its provider’s economics', () => {
    expect(ANTHROPIC_MESSAGES_PROTOCOL.cache).toBe(CACHE_ECONOMICS.anthropic);
    expect(OPENAI_CHAT_PROTOCOL.cache).toBe(CACHE_ECONOMICS.openai);
    expect(OPENAI_RESPONSES_PROTOCOL.cache).toBe(CACHE_ECONOMICS.openai);
    expect(GEMINI_API_PROTOCOL.cache).toBe(CACHE_ECONOMICS.gemini);
    expect(CACHE_ECONOMICS.anthropic).toMatchObject({ cacheWritePrice: 1.25, cacheReadPrice: 0.1 });
  });

  it('a warm batch that pays without a write premium is left whole through the Anthropic front', async () => {
    // Clears the threshold by 10%; Anthropic's break costs 28% more (1.15 / 0.9).
    const flags = await maskedThrough(Math.floor(PRUNABLE / 1.1));
    expect(flags.openai).toEqual([true, true, true, false]);
    expect(flags.anthropic).toEqual([false, false, false, false]);
  });

  it('a batch that clears the threshold by more than the premium is masked through both', async () => {
    const flags = await maskedThrough(Math.floor(PRUNABLE / 1.3));
    expect(flags.openai).toEqual([true, true, true, false]);
    expect(flags.anthropic).toEqual([true, true, true, false]);
  });
});
