/**
 * Replays a recorded session (../shared/traces) through a gateway the way the client would send
 * it: before each recorded model turn, the whole history up to that turn, unmasked, as one
 * streamed Gemini API request. The fake upstream answers each with usage from a prefix-cache
 * simulation (fake-upstream.ts), so the dashboard has real-looking prompt and cached tokens.
 */
import type { Content } from '@toolmask/core';
import {
  PrefixCache,
  geminiAnswer,
  startFakeUpstream,
  type FakeUpstream,
} from '@toolmask/test-support/fake-upstream';
import { post } from './gemini-client.js';

export const GEMINI_CLI_USER_AGENT = 'GeminiCLI/0.61.0/gemini-3-pro-preview (linux; x64)';

/** An upstream that answers every model request with a short text and prefix-cache usage. */
export async function cachingUpstream(): Promise<FakeUpstream> {
  const cache = new PrefixCache();
  return startFakeUpstream((request) => {
    const contents = ((request.json as { contents?: unknown[] })?.contents ?? []) as unknown[];
    return geminiAnswer([{ text: 'ok' }], cache.usage(JSON.stringify(contents[0]), contents));
  });
}

/** Sends the session's requests in order; resolves with how many were sent. */
export async function replayTrace(
  gatewayUrl: string,
  contents: readonly Content[],
  options: { model?: string; headers?: Record<string, string> } = {},
): Promise<number> {
  const url = `${gatewayUrl}/v1beta/models/${options.model ?? 'gemini-3-pro-preview'}:streamGenerateContent?alt=sse`;
  let sent = 0;
  for (let index = 1; index < contents.length; index++) {
    if (contents[index]?.role !== 'model') continue;
    const answer = await post(
      url,
      { contents: contents.slice(0, index) },
      { 'user-agent': GEMINI_CLI_USER_AGENT, ...options.headers },
    );
    if (answer.status !== 200) throw new Error(`request ${sent + 1}: HTTP ${answer.status}`);
    sent++;
  }
  return sent;
}
